/* fakeec2: a local EC2 endpoint for the tests of pipeline/cloud/cloud.sh.
 *
 *   fakeec2 --dir DIR --ssh-port N[,N...] [--port 0] [--fault NAME[,NAME]] [--log FILE]
 *           [--pending A[-B]] [--console-late A[-B]] [--notfound-s S] [--minute-s S]
 *           [--throttle ACTION:N[,ACTION:N]]
 *
 * An HTTP server on 127.0.0.1 (libevent's evhttp) that answers the EC2
 * Query API actions the cloud script calls, as the real `aws` command line
 * client sends them (POST, form-encoded, Action=...&Version=2016-11-15,
 * signed: an Authorization header must be there, its signature is not
 * checked) with the XML AWS documents: <ActionResponse xmlns=...> with a
 * requestId, lists as <xSet><item>...</item></xSet> (the element names are
 * the locationNames of botocore's EC2 service model), errors as
 * <Response><Errors><Error><Code>..</Code><Message>..</Message></Error>
 * </Errors><RequestID>..</RequestID></Response> with status 400.
 *
 * The world: one default VPC, a few Debian images (the newest arm64 one by
 * Debian's owner id is the one to pick; an older one, a backports one, one
 * of another owner and a pending one are there to be left out), a few
 * instance types, and what the client creates: key pairs (made with
 * ssh-keygen), security groups with their ingress rules, tags, instances.
 * An instance is a throwaway sshd on 127.0.0.1 port --ssh-port
 * (tests/fake/fakeec2vm.h): pending for 1 s, then running; terminating stops its
 * sshd at once and it shows as shutting-down for 1 s, then terminated.  Its
 * sshd starts only when its security group lets tcp port 22 in from a CIDR
 * holding 127.0.0.1 (else nothing listens, as a closed group drops the
 * packets).  One instance at a time per port of --ssh-port (a list gives
 * several machines at once, each on the first port no other one uses).  A security group used by
 * an instance not yet terminated cannot be deleted (DependencyViolation).
 *
 * Faults: refuse-run (RunInstances answers VcpuLimitExceeded, as for a new
 * account), silent-ssh (the instance's port completes the TCP handshake
 * and never says a word) and no-console (GetConsoleOutput has no output,
 * as for an instance without a serial console), no-capacity (RunInstances
 * answers InsufficientInstanceCapacity unless its Placement.AvailabilityZone
 * is fake-1b or fake-1c: the first zone, fake-1a, the default, is full) and
 * slow-run (RunInstances makes its instance at once but answers 5 s later,
 * the whole endpoint asleep meanwhile: a launch to interrupt; a request
 * sent in those 5 s is answered after them).  The zones
 * (DescribeAvailabilityZones): fake-1a, fake-1b, fake-1c, all available.
 *
 * Faults may be given together, comma-separated.
 *
 * Where a real run goes wrong (issue 30), each off unless asked for:
 * --pending A-B: each instance is pending for a time drawn from A to B s (1
 * s by default).  --console-late A-B: its console output is empty for a
 * drawn time after it runs, then complete (AWS's console lags minutes).
 * --notfound-s S: for S s after RunInstances an instance is unknown by its
 * id (InvalidInstanceID.NotFound) and absent from listings, as EC2's
 * eventual consistency has it.  --throttle ACTION:N: the first N requests
 * of ACTION answer RequestLimitExceeded with status 503, which the aws
 * client retries by itself (its own settings, as a user has them).
 * User-data holding `shutdown -h +N` powers the instance off N minutes
 * after it runs (--minute-s: the seconds of such a minute, 60 by
 * default): its sshd stops, and InstanceInitiatedShutdownBehavior decides
 * what follows (terminate: shutting-down, then terminated; stop, AWS's
 * default: stopping, then stopped), its stateReason
 * Client.InstanceInitiatedShutdown; a terminated one's is
 * Client.UserInitiatedShutdown.
 *
 * Its first line on stdout: "fakeec2: listening on 127.0.0.1 port N".  With
 * --log, each action's name is appended to FILE, one a line, and for an
 * error a line "Action Code" after it.  SIGTERM or SIGINT: every
 * instance's sshd is stopped, then it exits 0.
 */
#include <errno.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <sys/queue.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fakeec2.h"
#include "opt.h"
#include "util.h"

#define NS "http://ec2.amazonaws.com/doc/2016-11-15/"
#define DEBIAN "136693071363"  /* Debian's public owner id */

static const struct {
    const char *id, *name, *owner, *arch, *date, *state;
} IMAGES[] = {
    {"ami-0f00000000000a001", "debian-12-arm64-20240102-1600", DEBIAN, "arm64", "2024-01-02T16:05:11.000Z",
     "available"},
    {"ami-0f00000000000a002", "debian-12-arm64-20240717-1811", DEBIAN, "arm64", "2024-07-17T18:15:42.000Z",
     "available"},
    {"ami-0f00000000000b002", "debian-12-amd64-20240717-1811", DEBIAN, "x86_64", "2024-07-17T18:14:03.000Z",
     "available"},
    {"ami-0f00000000000c001", "debian-12-backports-arm64-20240801-1900", DEBIAN, "arm64",
     "2024-08-01T19:02:00.000Z", "available"},
    {"ami-0f00000000000d001", "debian-12-arm64-20250101-0000", "999988887777", "arm64", "2025-01-01T00:00:00.000Z",
     "available"},
    {"ami-0f00000000000e001", "debian-12-arm64-20241001-0000", DEBIAN, "arm64", "2024-10-01T00:00:00.000Z",
     "pending"},
};
#define NIMAGES (int)(sizeof IMAGES / sizeof IMAGES[0])

static const struct {
    const char *type, *arch;
    int vcpus, mib;
} TYPES[] = {
    {"c7g.medium", "arm64", 1, 2048}, {"c7g.large", "arm64", 2, 4096}, {"t4g.small", "arm64", 2, 2048},
    {"c7i.large", "x86_64", 2, 4096}, {"t3.micro", "x86_64", 2, 1024},
};
#define NTYPES (int)(sizeof TYPES / sizeof TYPES[0])

fe_world fe_w;

/* ---- small helpers ---- */

double fe_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double fe_draw(double lo, double hi)
{
    return lo + (hi - lo) * ((double)(ut_rng_u64(&fe_w.rng) >> 11) * 0x1.0p-53);
}

int fe_fault(const char *name)
{
    const char *f = fe_w.fault;
    size_t n = strlen(name);
    for (; f && *f; f += *f == ',') {
        size_t k = strcspn(f, ",");
        if (k == n && !strncmp(f, name, n))
            return 1;
        f += k;
    }
    return 0;
}

void fe_iso(double t, char buf[32])
{
    time_t s = (time_t)t;
    struct tm tm;
    gmtime_r(&s, &tm);
    strftime(buf, 32, "%Y-%m-%dT%H:%M:%S.000Z", &tm);
}

/* "i-" + 17 hex digits, as AWS's ids. */
void fe_new_id(char *out, size_t n, const char *prefix)
{
    uint64_t a = ut_rng_u64(&fe_w.rng), b = ut_rng_u64(&fe_w.rng);
    snprintf(out, n, "%s-0%016llx", prefix, (unsigned long long)(a ^ (b << 7)));
}

const char *fe_P(struct evkeyvalq *q, const char *name)
{
    return evhttp_find_header(q, name);
}

const char *fe_Pf(struct evkeyvalq *q, const char *fmt, ...)
{
    char name[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    return evhttp_find_header(q, name);
}

static void xml_esc(struct evbuffer *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': evbuffer_add(b, "&lt;", 4); break;
        case '>': evbuffer_add(b, "&gt;", 4); break;
        case '&': evbuffer_add(b, "&amp;", 5); break;
        case '"': evbuffer_add(b, "&quot;", 6); break;
        default: evbuffer_add(b, s, 1);
        }
    }
}

void fe_xs(struct evbuffer *b, const char *tag, const char *v)
{
    if (!v)
        return;
    evbuffer_add_printf(b, "<%s>", tag);
    xml_esc(b, v);
    evbuffer_add_printf(b, "</%s>", tag);
}

void fe_xi(struct evbuffer *b, const char *tag, long v)
{
    evbuffer_add_printf(b, "<%s>%ld</%s>", tag, v, tag);
}

void fe_b64(struct evbuffer *b, const unsigned char *s, size_t n)
{
    static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)s[i] << 16 | (i + 1 < n ? (unsigned)s[i + 1] << 8 : 0) | (i + 2 < n ? s[i + 2] : 0);
        char o[4] = {A[v >> 18 & 63], A[v >> 12 & 63], i + 1 < n ? A[v >> 6 & 63] : '=', i + 2 < n ? A[v & 63] : '='};
        evbuffer_add(b, o, 4);
    }
}

/* ---- replies ---- */

static void reply(struct evhttp_request *req, int status, struct evbuffer *body)
{
    evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type", "text/xml;charset=UTF-8");
    evhttp_send_reply(req, status, status == 200 ? "OK" : status == 503 ? "Service Unavailable" : "Bad Request", body);
}

static const char *cur_action = "(none)"; /* the request being answered: its errors' log line */

static int fail_v(struct evhttp_request *req, int status, const char *code, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    struct evbuffer *b = evbuffer_new();
    evbuffer_add_printf(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Response><Errors><Error>");
    fe_xs(b, "Code", code);
    fe_xs(b, "Message", msg);
    evbuffer_add_printf(b, "</Error></Errors><RequestID>fake-%08lu</RequestID></Response>", fe_w.reqno);
    reply(req, status, b);
    evbuffer_free(b);
    fe_log(cur_action, code);
    return -1;
}

int fe_fail(struct evhttp_request *req, const char *code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_v(req, 400, code, fmt, ap);
    va_end(ap);
    return -1;
}

int fe_fail_status(struct evhttp_request *req, int status, const char *code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_v(req, status, code, fmt, ap);
    va_end(ap);
    return -1;
}

struct evbuffer *fe_open(const char *action)
{
    struct evbuffer *b = evbuffer_new();
    evbuffer_add_printf(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<%sResponse xmlns=\"" NS "\">", action);
    evbuffer_add_printf(b, "<requestId>fake-%08lu</requestId>", fe_w.reqno);
    return b;
}

int fe_close(struct evhttp_request *req, struct evbuffer *b, const char *action)
{
    evbuffer_add_printf(b, "</%sResponse>", action);
    reply(req, 200, b);
    evbuffer_free(b);
    return 0;
}

/* ---- tags and filters ---- */

const char *fe_tag_of(const char *res, const char *key)
{
    for (int i = 0; i < fe_w.ntags; i++)
        if (!strcmp(fe_w.tags[i].res, res) && !strcmp(fe_w.tags[i].key, key))
            return fe_w.tags[i].value;
    return NULL;
}

void fe_tag_set(const char *res, const char *key, const char *value)
{
    for (int i = 0; i < fe_w.ntags; i++)
        if (!strcmp(fe_w.tags[i].res, res) && !strcmp(fe_w.tags[i].key, key)) {
            snprintf(fe_w.tags[i].value, sizeof fe_w.tags[i].value, "%s", value ? value : "");
            return;
        }
    if (fe_w.ntags == (int)(sizeof fe_w.tags / sizeof fe_w.tags[0]))
        return;
    fe_tag *t = &fe_w.tags[fe_w.ntags++];
    snprintf(t->res, sizeof t->res, "%s", res);
    snprintf(t->key, sizeof t->key, "%s", key);
    snprintf(t->value, sizeof t->value, "%s", value ? value : "");
}

void fe_tags_xml(struct evbuffer *b, const char *res)
{
    evbuffer_add_printf(b, "<tagSet>");
    for (int i = 0; i < fe_w.ntags; i++)
        if (!strcmp(fe_w.tags[i].res, res)) {
            evbuffer_add_printf(b, "<item>");
            fe_xs(b, "key", fe_w.tags[i].key);
            fe_xs(b, "value", fe_w.tags[i].value);
            evbuffer_add_printf(b, "</item>");
        }
    evbuffer_add_printf(b, "</tagSet>");
}

/* TagSpecification.N.ResourceType=<type>, TagSpecification.N.Tag.M.Key/Value: applied to res. */
void fe_tag_specs(struct evkeyvalq *q, const char *type, const char *res)
{
    for (int n = 1; fe_Pf(q, "TagSpecification.%d.ResourceType", n); n++) {
        if (strcmp(fe_Pf(q, "TagSpecification.%d.ResourceType", n), type))
            continue;
        for (int m = 1; fe_Pf(q, "TagSpecification.%d.Tag.%d.Key", n, m); m++)
            fe_tag_set(res, fe_Pf(q, "TagSpecification.%d.Tag.%d.Key", n, m), fe_Pf(q, "TagSpecification.%d.Tag.%d.Value", n, m));
    }
}

/* Does the value v match any value of filter n (wildcards * and ?)? */
static int fvalue(struct evkeyvalq *q, int n, const char *v)
{
    for (int m = 1; fe_Pf(q, "Filter.%d.Value.%d", n, m); m++)
        if (v && fnmatch(fe_Pf(q, "Filter.%d.Value.%d", n, m), v, 0) == 0)
            return 1;
    return 0;
}


/* 1 when res passes every filter; -1 (replied) on a filter the resource does not know. */
int fe_filters(struct evhttp_request *req, struct evkeyvalq *q, const char *id, const void *res, fe_attr_fn attr)
{
    int pass = 1;
    for (int n = 1; fe_Pf(q, "Filter.%d.Name", n); n++) {
        const char *name = fe_Pf(q, "Filter.%d.Name", n);
        if (!strncmp(name, "tag:", 4)) {
            pass &= fvalue(q, n, fe_tag_of(id, name + 4));
            continue;
        }
        if (!strcmp(name, "tag-key")) {
            int any = 0;
            for (int i = 0; i < fe_w.ntags; i++)
                any |= !strcmp(fe_w.tags[i].res, id) && fvalue(q, n, fe_w.tags[i].key);
            pass &= any;
            continue;
        }
        int known = 0;
        const char *v = attr(res, name, &known);
        if (!known)
            return fe_fail(req, "InvalidParameterValue", "The filter '%s' is invalid", name);
        pass &= fvalue(q, n, v);
    }
    return pass;
}

/* ---- images, instance types, VPCs ---- */

static const char *image_attr(const void *res, const char *name, int *known)
{
    int i = *(const int *)res;
    *known = 1;
    if (!strcmp(name, "name"))
        return IMAGES[i].name;
    if (!strcmp(name, "architecture"))
        return IMAGES[i].arch;
    if (!strcmp(name, "state"))
        return IMAGES[i].state;
    if (!strcmp(name, "owner-id"))
        return IMAGES[i].owner;
    if (!strcmp(name, "image-id"))
        return IMAGES[i].id;
    if (!strcmp(name, "root-device-type"))
        return "ebs";
    if (!strcmp(name, "virtualization-type"))
        return "hvm";
    *known = 0;
    return NULL;
}

static int owner_ok(struct evkeyvalq *q, const char *owner)
{
    if (!fe_P(q, "Owner.1"))
        return 1;
    for (int m = 1; fe_Pf(q, "Owner.%d", m); m++)
        if (!strcmp(fe_Pf(q, "Owner.%d", m), owner))
            return 1;
    return 0;
}

static void image_xml(struct evbuffer *b, int i)
{
    char loc[300];
    snprintf(loc, sizeof loc, "%s/%s", IMAGES[i].owner, IMAGES[i].name);
    evbuffer_add_printf(b, "<item>");
    fe_xs(b, "imageId", IMAGES[i].id);
    fe_xs(b, "imageLocation", loc);
    fe_xs(b, "imageState", IMAGES[i].state);
    fe_xs(b, "imageOwnerId", IMAGES[i].owner);
    fe_xs(b, "creationDate", IMAGES[i].date);
    fe_xs(b, "isPublic", "true");
    fe_xs(b, "architecture", IMAGES[i].arch);
    fe_xs(b, "imageType", "machine");
    fe_xs(b, "name", IMAGES[i].name);
    fe_xs(b, "description", "Debian 12 (a fake image of tests/fake/fakeec2.c)");
    fe_xs(b, "rootDeviceType", "ebs");
    fe_xs(b, "rootDeviceName", "/dev/xvda");
    evbuffer_add_printf(b, "<blockDeviceMapping><item><deviceName>/dev/xvda</deviceName><ebs><volumeSize>8"
                           "</volumeSize><deleteOnTermination>true</deleteOnTermination><volumeType>gp3"
                           "</volumeType></ebs></item></blockDeviceMapping>");
    fe_xs(b, "virtualizationType", "hvm");
    fe_xs(b, "hypervisor", "xen");
    fe_xs(b, "enaSupport", "true");
    evbuffer_add_printf(b, "</item>");
}

static int describe_images(struct evhttp_request *req, struct evkeyvalq *q)
{
    struct evbuffer *b = fe_open("DescribeImages");
    evbuffer_add_printf(b, "<imagesSet>");
    for (int i = 0; i < NIMAGES; i++) {
        int ok = fe_filters(req, q, IMAGES[i].id, &i, image_attr);
        if (ok < 0) {
            evbuffer_free(b);
            return -1;
        }
        if (ok && owner_ok(q, IMAGES[i].owner))
            image_xml(b, i);
    }
    evbuffer_add_printf(b, "</imagesSet>");
    return fe_close(req, b, "DescribeImages");
}

static int type_index(const char *t)
{
    for (int i = 0; t && i < NTYPES; i++)
        if (!strcmp(TYPES[i].type, t))
            return i;
    return -1;
}

const char *fe_image_arch(const char *image_id)
{
    for (int i = 0; image_id && i < NIMAGES; i++)
        if (!strcmp(IMAGES[i].id, image_id))
            return IMAGES[i].arch;
    return NULL;
}

const char *fe_type_arch(const char *type)
{
    int i = type_index(type);
    return i < 0 ? NULL : TYPES[i].arch;
}

static int describe_instance_types(struct evhttp_request *req, struct evkeyvalq *q)
{
    for (int m = 1; fe_Pf(q, "InstanceType.%d", m); m++)
        if (type_index(fe_Pf(q, "InstanceType.%d", m)) < 0)
            return fe_fail(req, "InvalidInstanceType", "The following supplied instance types do not exist: [%s]",
                        fe_Pf(q, "InstanceType.%d", m));
    struct evbuffer *b = fe_open("DescribeInstanceTypes");
    evbuffer_add_printf(b, "<instanceTypeSet>");
    for (int i = 0; i < NTYPES; i++) {
        int want = !fe_P(q, "InstanceType.1");
        for (int m = 1; fe_Pf(q, "InstanceType.%d", m); m++)
            want |= !strcmp(fe_Pf(q, "InstanceType.%d", m), TYPES[i].type);
        if (!want)
            continue;
        evbuffer_add_printf(b, "<item>");
        fe_xs(b, "instanceType", TYPES[i].type);
        fe_xs(b, "currentGeneration", "true");
        evbuffer_add_printf(b, "<processorInfo><supportedArchitectures><item>%s</item></supportedArchitectures>"
                               "</processorInfo>", TYPES[i].arch);
        evbuffer_add_printf(b, "<vCpuInfo><defaultVCpus>%d</defaultVCpus></vCpuInfo>", TYPES[i].vcpus);
        evbuffer_add_printf(b, "<memoryInfo><sizeInMiB>%d</sizeInMiB></memoryInfo>", TYPES[i].mib);
        evbuffer_add_printf(b, "</item>");
    }
    evbuffer_add_printf(b, "</instanceTypeSet>");
    return fe_close(req, b, "DescribeInstanceTypes");
}

static const char *vpc_attr(const void *res, const char *name, int *known)
{
    (void)res;
    *known = 1;
    if (!strcmp(name, "is-default"))
        return "true";
    if (!strcmp(name, "vpc-id"))
        return fe_w.vpc;
    if (!strcmp(name, "state"))
        return "available";
    *known = 0;
    return NULL;
}

static int describe_vpcs(struct evhttp_request *req, struct evkeyvalq *q)
{
    int ok = fe_filters(req, q, fe_w.vpc, NULL, vpc_attr);
    if (ok < 0)
        return -1;
    struct evbuffer *b = fe_open("DescribeVpcs");
    evbuffer_add_printf(b, "<vpcSet>");
    if (ok) {
        evbuffer_add_printf(b, "<item>");
        fe_xs(b, "vpcId", fe_w.vpc);
        fe_xs(b, "ownerId", FE_ACCOUNT);
        fe_xs(b, "state", "available");
        fe_xs(b, "cidrBlock", "172.31.0.0/16");
        fe_xs(b, "instanceTenancy", "default");
        fe_xs(b, "isDefault", "true");
        evbuffer_add_printf(b, "</item>");
    }
    evbuffer_add_printf(b, "</vpcSet>");
    return fe_close(req, b, "DescribeVpcs");
}

static int describe_availability_zones(struct evhttp_request *req, struct evkeyvalq *q)
{
    (void)q; /* every zone is available: the filters the script sends keep them all */
    struct evbuffer *b = fe_open("DescribeAvailabilityZones");
    evbuffer_add_printf(b, "<availabilityZoneInfo>");
    const char *zones[] = {"fake-1a", "fake-1b", "fake-1c"};
    for (int i = 0; i < 3; i++) {
        evbuffer_add_printf(b, "<item>");
        fe_xs(b, "zoneName", zones[i]);
        fe_xs(b, "zoneState", "available");
        fe_xs(b, "regionName", "fake-1");
        fe_xs(b, "zoneType", "availability-zone");
        evbuffer_add_printf(b, "</item>");
    }
    evbuffer_add_printf(b, "</availabilityZoneInfo>");
    return fe_close(req, b, "DescribeAvailabilityZones");
}

/* ---- the server ---- */

typedef int (*action_fn)(struct evhttp_request *, struct evkeyvalq *);
static const struct {
    const char *name;
    action_fn fn;
} ACTIONS[] = {
    {"DescribeImages", describe_images},
    {"DescribeInstanceTypes", describe_instance_types},
    {"DescribeVpcs", describe_vpcs},
    {"DescribeAvailabilityZones", describe_availability_zones},
    {"CreateKeyPair", fe_create_key_pair},
    {"DescribeKeyPairs", fe_describe_key_pairs},
    {"DeleteKeyPair", fe_delete_key_pair},
    {"CreateSecurityGroup", fe_create_security_group},
    {"DescribeSecurityGroups", fe_describe_security_groups},
    {"AuthorizeSecurityGroupIngress", fe_authorize_ingress},
    {"RevokeSecurityGroupIngress", fe_revoke_ingress},
    {"DeleteSecurityGroup", fe_delete_security_group},
    {"RunInstances", fe_run_instances},
    {"DescribeInstances", fe_describe_instances},
    {"TerminateInstances", fe_terminate_instances},
    {"GetConsoleOutput", fe_get_console_output},
    {"CreateTags", fe_create_tags},
};

void fe_log(const char *action, const char *code)
{
    if (!fe_w.log)
        return;
    FILE *f = fopen(fe_w.log, "a");
    if (f) {
        if (code)
            fprintf(f, "%s %s\n", action, code);
        else
            fprintf(f, "%s\n", action);
        fclose(f);
    }
}

/* --throttle: 1 (replied RequestLimitExceeded, as EC2 does with status 503) while ACTION has throttled requests left */
static int throttled(struct evhttp_request *req, const char *action)
{
    for (int i = 0; i < fe_w.nthr; i++)
        if (!strcmp(fe_w.thr[i].action, action) && fe_w.thr[i].left > 0) {
            fe_w.thr[i].left--;
            fe_fail_status(req, 503, "RequestLimitExceeded", "Request limit exceeded.");
            return 1;
        }
    return 0;
}

static void on_request(struct evhttp_request *req, void *arg)
{
    (void)arg;
    fe_w.reqno++;
    struct evbuffer *in = evhttp_request_get_input_buffer(req);
    size_t n = evbuffer_get_length(in);
    char *body = malloc(n + 1);
    if (!body)
        exit(1);
    evbuffer_remove(in, body, n);
    body[n] = 0;
    struct evkeyvalq q;
    TAILQ_INIT(&q);
    const char *auth = evhttp_find_header(evhttp_request_get_input_headers(req), "Authorization");
    if (evhttp_request_get_command(req) != EVHTTP_REQ_POST || evhttp_parse_query_str(body, &q) != 0) {
        fe_fail(req, "InvalidRequest", "a POST of form-encoded parameters is expected");
    } else if (!auth || !strstr(auth, "Credential=")) {
        fe_fail(req, "AuthFailure", "AWS was not able to validate the provided access credentials");
    } else {
        const char *action = fe_P(&q, "Action");
        int i = 0, nact = (int)(sizeof ACTIONS / sizeof ACTIONS[0]);
        while (i < nact && (!action || strcmp(ACTIONS[i].name, action)))
            i++;
        cur_action = action ? action : "(none)";
        fe_log(cur_action, NULL);
        fe_tick();
        if (i == nact)
            fe_fail(req, "InvalidAction", "The action %s is not valid for this web service.", action ? action : "(none)");
        else if (!throttled(req, action))
            ACTIONS[i].fn(req, &q);
        cur_action = "(none)";
    }
    evhttp_clear_headers(&q);
    free(body);
}

/* "A" or "A-B", seconds from 0 to 600, A <= B */
static int range(const char *text, const char *opt, double *lo, double *hi)
{
    char *end;
    *lo = strtod(text, &end);
    *hi = *lo;
    if (end != text && *end == '-')
        *hi = strtod(end + 1, &end);
    if (end == text || *end || !(*lo >= 0) || !(*hi >= *lo) || *hi > 600) {
        ut_err("option %s: \"%s\": not seconds A or a range A-B (0 <= A <= B <= 600)", opt, text);
        return -1;
    }
    return 0;
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    (void)arg;
    fe_tick();
}

static void on_signal(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    event_base_loopexit(arg, NULL);
}

int main(int argc, char **argv)
{
    ut_set_prog("fakeec2");
    int port = 0;
    const char *ports = NULL, *pending = "1", *late = "0", *throttle = NULL;
    fe_w.minute_s = 60;
    const opt_spec spec[] = {
        {"--dir", OPT_STR, &fe_w.dir, 0, 0, "DIR", "key pairs and instances' folders go here"},
        {"--ssh-port", OPT_STR, &ports, 0, 0, "N[,N...]", "the ports instances' sshds listen on (127.0.0.1)"},
        {"--port", OPT_INT, &port, 0, 65535, "N", "the endpoint's port (0: any free one)"},
        {"--fault", OPT_STR, &fe_w.fault, 0, 0, "NAME[,NAME]",
         "faults: refuse-run, silent-ssh, no-console, no-capacity, slow-run"},
        {"--log", OPT_STR, &fe_w.log, 0, 0, "FILE", "each action's name is appended here (an error's code beside it)"},
        {"--pending", OPT_STR, &pending, 0, 0, "A[-B]", "seconds an instance is pending, drawn from A to B (1)"},
        {"--console-late", OPT_STR, &late, 0, 0, "A[-B]",
         "seconds the console stays empty after the instance runs, drawn from A to B (0)"},
        {"--notfound-s", OPT_DBL, &fe_w.notfound_s, 0, 600, "S",
         "seconds a new instance is unknown by its id (InvalidInstanceID.NotFound) (0)"},
        {"--minute-s", OPT_DBL, &fe_w.minute_s, 0.001, 60, "S", "the seconds of a minute of user-data's shutdown (60)"},
        {"--throttle", OPT_STR, &throttle, 0, 0, "ACTION:N[,...]",
         "the first N requests of ACTION answer RequestLimitExceeded (503)"},
        {0}};
    int prc = opt_parse(argc, argv, spec,
                        "fakeec2: a local EC2 endpoint (Query API) whose instances are sshds on 127.0.0.1", NULL);
    if (prc != OPT_OK)
        return prc == OPT_HELP ? 0 : 2;
    if (!fe_w.dir || !ports) {
        ut_err("--dir and --ssh-port are required (try --help)");
        return 2;
    }
    for (const char *p = ports; *p && fe_w.nports < FE_MAXN; p += *p == ',') {
        char one[16], why[128];
        size_t n = strcspn(p, ",");
        snprintf(one, sizeof one, "%.*s", (int)(n < 15 ? n : 15), p);
        if (opt_int(one, 1, 65535, &fe_w.ssh_ports[fe_w.nports++], why, sizeof why) != 0) {
            ut_err("option --ssh-port: \"%s\": %s", one, why);
            return 2;
        }
        p += n;
    }
    for (const char *f = fe_w.fault; f && *f; f += *f == ',') {
        static const char *FAULTS[] = {"refuse-run", "silent-ssh", "no-console", "no-capacity", "slow-run"};
        size_t k = strcspn(f, ","), i = 0;
        while (i < 5 && !(strlen(FAULTS[i]) == k && !strncmp(f, FAULTS[i], k)))
            i++;
        if (i == 5) {
            ut_err("option --fault: \"%.*s\": not refuse-run, silent-ssh, no-console, no-capacity or slow-run", (int)k,
                   f);
            return 2;
        }
        f += k;
    }
    if (range(pending, "--pending", &fe_w.pending_lo, &fe_w.pending_hi) != 0 ||
        range(late, "--console-late", &fe_w.console_lo, &fe_w.console_hi) != 0)
        return 2;
    for (const char *t = throttle; t && *t; t += *t == ',') {
        size_t k = strcspn(t, ",");
        char one[80], *colon;
        snprintf(one, sizeof one, "%.*s", (int)(k < 79 ? k : 79), t);
        colon = strchr(one, ':');
        int n = 0;
        char why[128];
        if (!colon || colon == one || colon - one >= 48 || opt_int(colon + 1, 1, 1000, &n, why, sizeof why) != 0 ||
            fe_w.nthr == 8) {
            ut_err("option --throttle: \"%s\": not ACTION:N (N from 1 to 1000; at most 8)", one);
            return 2;
        }
        *colon = 0;
        memcpy(fe_w.thr[fe_w.nthr].action, one, (size_t)(colon - one) + 1); /* under 48, checked above */
        fe_w.thr[fe_w.nthr++].left = n;
        t += k;
    }
    char err[UT_ERRLEN];
    if (ut_mkdir_p(fe_w.dir, err, sizeof err) != 0) {
        ut_err("%s", err);
        return 1;
    }
    ut_rng_seed(&fe_w.rng, (uint64_t)getpid() ^ (uint64_t)(fe_now() * 1e6));
    fe_new_id(fe_w.vpc, sizeof fe_w.vpc, "vpc");
    signal(SIGPIPE, SIG_IGN);
    struct event_base *base = event_base_new();
    struct evhttp *http = evhttp_new(base);
    struct evhttp_bound_socket *bs = evhttp_bind_socket_with_handle(http, "127.0.0.1", (ev_uint16_t)port);
    if (!bs) {
        ut_err("cannot listen on 127.0.0.1 port %d: %s", port, strerror(errno));
        return 1;
    }
    struct sockaddr_in a;
    socklen_t alen = sizeof a;
    getsockname(evhttp_bound_socket_get_fd(bs), (struct sockaddr *)&a, &alen);
    evhttp_set_gencb(http, on_request, NULL);
    struct event *st = evsignal_new(base, SIGTERM, on_signal, base), *si = evsignal_new(base, SIGINT, on_signal, base);
    evsignal_add(st, NULL);
    evsignal_add(si, NULL);
    struct event *tick = event_new(base, -1, EV_PERSIST, on_tick, NULL);
    struct timeval fifth = {0, 200000};
    event_add(tick, &fifth); /* a machine whose shutdown has come stops answering within 0.2 s */
    printf("fakeec2: listening on 127.0.0.1 port %d\n", ntohs(a.sin_port));
    fflush(stdout);
    event_base_dispatch(base);
    for (int i = 0; i < fe_w.ninsts; i++)
        fe_vm_halt(&fe_w.insts[i].vm);
    event_free(tick);
    event_free(st);
    event_free(si);
    evhttp_free(http);
    event_base_free(base);
    return 0;
}
