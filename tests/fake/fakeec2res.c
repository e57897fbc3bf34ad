/* fakeec2res: what a client creates in the fake EC2: key pairs, security
 * groups with their ingress rules, instances (tests/fake/fakeec2vm.h), tags.
 * See fakeec2.h; the behaviour is described at the head of fakeec2.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fakeec2.h"
#include "opt.h"

#define SHUTDOWN_S 1.0 /* shutting-down (or stopping) lasts this long */

/* ---- key pairs ---- */

static fe_key *key_by_name(const char *name)
{
    for (int i = 0; name && i < fe_w.nkeys; i++)
        if (fe_w.keys[i].alive && !strcmp(fe_w.keys[i].name, name))
            return &fe_w.keys[i];
    return NULL;
}

int fe_create_key_pair(fe_req *req, fe_q *q)
{
    const char *name = fe_P(q, "KeyName"), *type = fe_P(q, "KeyType") ? fe_P(q, "KeyType") : "rsa";
    if (!name || !name[0])
        return fe_fail(req, "MissingParameter", "The request must contain the parameter KeyName");
    if (key_by_name(name))
        return fe_fail(req, "InvalidKeyPair.Duplicate", "The keypair '%s' already exists.", name);
    if (strcmp(type, "rsa") && strcmp(type, "ed25519"))
        return fe_fail(req, "InvalidParameterValue", "Value (%s) for parameter keyType is invalid.", type);
    if (fe_w.nkeys == FE_MAXN)
        return fe_fail(req, "KeyPairLimitExceeded", "Maximum of %d keypairs reached.", FE_MAXN);
    fe_key *k = &fe_w.keys[fe_w.nkeys];
    memset(k, 0, sizeof *k);
    fe_new_id(k->id, sizeof k->id, "key");
    snprintf(k->name, sizeof k->name, "%s", name);
    snprintf(k->type, sizeof k->type, "%s", type);
    char dir[600], *priv = NULL, err[UT_ERRLEN];
    snprintf(dir, sizeof dir, "%s/keys", fe_w.dir);
    if (fe_keygen(dir, k->id, type, &priv, k->pub, k->fp, err, sizeof err) != 0) {
        free(priv);
        return fe_fail(req, "InternalError", "%s", err);
    }
    k->alive = 1;
    fe_w.nkeys++;
    fe_tag_specs(q, "key-pair", k->id);
    struct evbuffer *b = fe_open("CreateKeyPair");
    fe_xs(b, "keyName", k->name);
    fe_xs(b, "keyFingerprint", k->fp);
    fe_xs(b, "keyMaterial", priv);
    fe_xs(b, "keyPairId", k->id);
    fe_tags_xml(b, k->id);
    free(priv);
    return fe_close(req, b, "CreateKeyPair");
}

static const char *key_attr(const void *res, const char *name, int *known)
{
    const fe_key *k = res;
    *known = 1;
    if (!strcmp(name, "key-name"))
        return k->name;
    if (!strcmp(name, "key-pair-id"))
        return k->id;
    if (!strcmp(name, "fingerprint"))
        return k->fp;
    *known = 0;
    return NULL;
}

int fe_describe_key_pairs(fe_req *req, fe_q *q)
{
    for (int m = 1; fe_Pf(q, "KeyName.%d", m); m++)
        if (!key_by_name(fe_Pf(q, "KeyName.%d", m)))
            return fe_fail(req, "InvalidKeyPair.NotFound", "The key pair '%s' does not exist", fe_Pf(q, "KeyName.%d", m));
    struct evbuffer *b = fe_open("DescribeKeyPairs");
    evbuffer_add_printf(b, "<keySet>");
    for (int i = 0; i < fe_w.nkeys; i++) {
        fe_key *k = &fe_w.keys[i];
        int want = k->alive && !fe_P(q, "KeyName.1");
        for (int m = 1; k->alive && fe_Pf(q, "KeyName.%d", m); m++)
            want |= !strcmp(fe_Pf(q, "KeyName.%d", m), k->name);
        int ok = want ? fe_filters(req, q, k->id, k, key_attr) : 0;
        if (ok < 0) {
            evbuffer_free(b);
            return -1;
        }
        if (!ok)
            continue;
        evbuffer_add_printf(b, "<item>");
        fe_xs(b, "keyPairId", k->id);
        fe_xs(b, "keyFingerprint", k->fp);
        fe_xs(b, "keyName", k->name);
        fe_xs(b, "keyType", k->type);
        fe_tags_xml(b, k->id);
        evbuffer_add_printf(b, "</item>");
    }
    evbuffer_add_printf(b, "</keySet>");
    return fe_close(req, b, "DescribeKeyPairs");
}

/* As AWS: deleting a key pair that is not there succeeds. */
int fe_delete_key_pair(fe_req *req, fe_q *q)
{
    fe_key *k = key_by_name(fe_P(q, "KeyName"));
    for (int i = 0; !k && fe_P(q, "KeyPairId") && i < fe_w.nkeys; i++)
        if (fe_w.keys[i].alive && !strcmp(fe_w.keys[i].id, fe_P(q, "KeyPairId")))
            k = &fe_w.keys[i];
    if (k)
        k->alive = 0;
    struct evbuffer *b = fe_open("DeleteKeyPair");
    fe_xs(b, "return", "true");
    return fe_close(req, b, "DeleteKeyPair");
}

/* ---- security groups ---- */

static fe_group *group_by_id(const char *id)
{
    for (int i = 0; id && i < fe_w.ngroups; i++)
        if (fe_w.groups[i].alive && !strcmp(fe_w.groups[i].id, id))
            return &fe_w.groups[i];
    return NULL;
}

int fe_create_security_group(fe_req *req, fe_q *q)
{
    const char *name = fe_P(q, "GroupName"), *desc = fe_P(q, "GroupDescription"), *vpc = fe_P(q, "VpcId");
    if (!name || !desc)
        return fe_fail(req, "MissingParameter", "The request must contain the parameters GroupName and GroupDescription");
    if (vpc && strcmp(vpc, fe_w.vpc))
        return fe_fail(req, "InvalidVpcID.NotFound", "The vpc ID '%s' does not exist", vpc);
    for (int i = 0; i < fe_w.ngroups; i++)
        if (fe_w.groups[i].alive && !strcmp(fe_w.groups[i].name, name))
            return fe_fail(req, "InvalidGroup.Duplicate", "The security group '%s' already exists for VPC '%s'", name,
                        fe_w.vpc);
    if (fe_w.ngroups == FE_MAXN)
        return fe_fail(req, "SecurityGroupLimitExceeded", "The maximum number of security groups has been reached.");
    fe_group *g = &fe_w.groups[fe_w.ngroups++];
    memset(g, 0, sizeof *g);
    fe_new_id(g->id, sizeof g->id, "sg");
    snprintf(g->name, sizeof g->name, "%s", name);
    snprintf(g->desc, sizeof g->desc, "%s", desc);
    g->alive = 1;
    fe_tag_specs(q, "security-group", g->id);
    struct evbuffer *b = fe_open("CreateSecurityGroup");
    fe_xs(b, "return", "true");
    fe_xs(b, "groupId", g->id);
    fe_tags_xml(b, g->id);
    return fe_close(req, b, "CreateSecurityGroup");
}

/* IpPermissions.N.{IpProtocol,FromPort,ToPort,IpRanges.M.CidrIp,IpRanges.M.Description}: the rules, or -1 (replied). */
static int read_rules(fe_req *req, fe_q *q, fe_rule *out, int max)
{
    int n = 0;
    for (int i = 1; fe_Pf(q, "IpPermissions.%d.IpProtocol", i); i++)
        for (int m = 1; fe_Pf(q, "IpPermissions.%d.IpRanges.%d.CidrIp", i, m); m++) {
            if (n == max)
                return fe_fail(req, "RulesPerSecurityGroupLimitExceeded", "too many rules");
            fe_rule *r = &out[n++];
            memset(r, 0, sizeof *r);
            const char *from = fe_Pf(q, "IpPermissions.%d.FromPort", i), *to = fe_Pf(q, "IpPermissions.%d.ToPort", i);
            const char *cidr = fe_Pf(q, "IpPermissions.%d.IpRanges.%d.CidrIp", i, m);
            const char *desc = fe_Pf(q, "IpPermissions.%d.IpRanges.%d.Description", i, m);
            unsigned a, b2, c, d, len;
            char why[96];
            if (sscanf(cidr, "%u.%u.%u.%u/%u", &a, &b2, &c, &d, &len) != 5 || a > 255 || b2 > 255 || c > 255 ||
                d > 255 || len > 32)
                return fe_fail(req, "InvalidParameterValue", "CIDR block %s is malformed", cidr);
            if (!from || !to || opt_int(from, -1, 65535, &r->from, why, sizeof why) != 0 ||
                opt_int(to, -1, 65535, &r->to, why, sizeof why) != 0)
                return fe_fail(req, "InvalidParameterValue", "FromPort and ToPort must be ports");
            snprintf(r->proto, sizeof r->proto, "%s", fe_Pf(q, "IpPermissions.%d.IpProtocol", i));
            snprintf(r->cidr, sizeof r->cidr, "%s", cidr);
            snprintf(r->desc, sizeof r->desc, "%s", desc ? desc : "");
        }
    if (n == 0)
        return fe_fail(req, "MissingParameter", "No IpPermissions with IpRanges given");
    return n;
}

static int same_rule(const fe_rule *a, const fe_rule *b)
{
    return !strcmp(a->proto, b->proto) && a->from == b->from && a->to == b->to && !strcmp(a->cidr, b->cidr);
}

int fe_authorize_ingress(fe_req *req, fe_q *q)
{
    fe_group *g = group_by_id(fe_P(q, "GroupId"));
    if (!g)
        return fe_fail(req, "InvalidGroup.NotFound", "The security group '%s' does not exist",
                    fe_P(q, "GroupId") ? fe_P(q, "GroupId") : "(none)");
    fe_rule r[8];
    int n = read_rules(req, q, r, 8);
    if (n < 0)
        return -1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < g->nin; j++)
            if (same_rule(&r[i], &g->in[j]))
                return fe_fail(req, "InvalidPermission.Duplicate",
                            "the specified rule \"peer: %s, %s, from port: %d, to port: %d, ALLOW\" already exists",
                            r[i].cidr, r[i].proto, r[i].from, r[i].to);
    if (g->nin + n > 16)
        return fe_fail(req, "RulesPerSecurityGroupLimitExceeded", "too many rules");
    struct evbuffer *b = fe_open("AuthorizeSecurityGroupIngress");
    fe_xs(b, "return", "true");
    evbuffer_add_printf(b, "<securityGroupRuleSet>");
    for (int i = 0; i < n; i++) {
        fe_rule *s = &g->in[g->nin++];
        *s = r[i];
        fe_new_id(s->id, sizeof s->id, "sgr");
        evbuffer_add_printf(b, "<item>");
        fe_xs(b, "securityGroupRuleId", s->id);
        fe_xs(b, "groupId", g->id);
        fe_xs(b, "groupOwnerId", FE_ACCOUNT);
        fe_xs(b, "isEgress", "false");
        fe_xs(b, "ipProtocol", s->proto);
        fe_xi(b, "fromPort", s->from);
        fe_xi(b, "toPort", s->to);
        fe_xs(b, "cidrIpv4", s->cidr);
        fe_xs(b, "description", s->desc[0] ? s->desc : NULL);
        evbuffer_add_printf(b, "</item>");
    }
    evbuffer_add_printf(b, "</securityGroupRuleSet>");
    return fe_close(req, b, "AuthorizeSecurityGroupIngress");
}

int fe_revoke_ingress(fe_req *req, fe_q *q)
{
    fe_group *g = group_by_id(fe_P(q, "GroupId"));
    if (!g)
        return fe_fail(req, "InvalidGroup.NotFound", "The security group '%s' does not exist",
                    fe_P(q, "GroupId") ? fe_P(q, "GroupId") : "(none)");
    fe_rule r[8];
    int n = read_rules(req, q, r, 8);
    if (n < 0)
        return -1;
    for (int i = 0; i < n; i++) {
        int j = 0;
        while (j < g->nin && !same_rule(&r[i], &g->in[j]))
            j++;
        if (j == g->nin)
            return fe_fail(req, "InvalidPermission.NotFound",
                        "The specified rule does not exist in this security group.");
        g->in[j] = g->in[--g->nin];
    }
    struct evbuffer *b = fe_open("RevokeSecurityGroupIngress");
    fe_xs(b, "return", "true");
    return fe_close(req, b, "RevokeSecurityGroupIngress");
}

static const char *group_attr(const void *res, const char *name, int *known)
{
    const fe_group *g = res;
    *known = 1;
    if (!strcmp(name, "group-name"))
        return g->name;
    if (!strcmp(name, "group-id"))
        return g->id;
    if (!strcmp(name, "vpc-id"))
        return fe_w.vpc;
    *known = 0;
    return NULL;
}

static void group_xml(struct evbuffer *b, const fe_group *g)
{
    evbuffer_add_printf(b, "<item>");
    fe_xs(b, "ownerId", FE_ACCOUNT);
    fe_xs(b, "groupId", g->id);
    fe_xs(b, "groupName", g->name);
    fe_xs(b, "groupDescription", g->desc);
    fe_xs(b, "vpcId", fe_w.vpc);
    evbuffer_add_printf(b, "<ipPermissions>");
    for (int j = 0; j < g->nin; j++) {
        evbuffer_add_printf(b, "<item>");
        fe_xs(b, "ipProtocol", g->in[j].proto);
        fe_xi(b, "fromPort", g->in[j].from);
        fe_xi(b, "toPort", g->in[j].to);
        evbuffer_add_printf(b, "<ipRanges><item>");
        fe_xs(b, "cidrIp", g->in[j].cidr);
        fe_xs(b, "description", g->in[j].desc[0] ? g->in[j].desc : NULL);
        evbuffer_add_printf(b, "</item></ipRanges></item>");
    }
    evbuffer_add_printf(b, "</ipPermissions>");
    fe_tags_xml(b, g->id);
    evbuffer_add_printf(b, "</item>");
}

int fe_describe_security_groups(fe_req *req, fe_q *q)
{
    for (int m = 1; fe_Pf(q, "GroupId.%d", m); m++)
        if (!group_by_id(fe_Pf(q, "GroupId.%d", m)))
            return fe_fail(req, "InvalidGroup.NotFound", "The security group '%s' does not exist", fe_Pf(q, "GroupId.%d", m));
    struct evbuffer *b = fe_open("DescribeSecurityGroups");
    evbuffer_add_printf(b, "<securityGroupInfo>");
    for (int i = 0; i < fe_w.ngroups; i++) {
        fe_group *g = &fe_w.groups[i];
        int want = g->alive && !fe_P(q, "GroupId.1");
        for (int m = 1; g->alive && fe_Pf(q, "GroupId.%d", m); m++)
            want |= !strcmp(fe_Pf(q, "GroupId.%d", m), g->id);
        int ok = want ? fe_filters(req, q, g->id, g, group_attr) : 0;
        if (ok < 0) {
            evbuffer_free(b);
            return -1;
        }
        if (ok)
            group_xml(b, g);
    }
    evbuffer_add_printf(b, "</securityGroupInfo>");
    return fe_close(req, b, "DescribeSecurityGroups");
}

/* ---- instances ---- */

static const char *inst_state(const fe_inst *in, int *code)
{
    double t = fe_now();
    static const struct {
        const char *name;
        int code;
    } S[] = {{"pending", 0}, {"running", 16}, {"shutting-down", 32}, {"terminated", 48}, {"stopping", 64},
             {"stopped", 80}};
    int k = in->terminating ? (t - in->terminating >= SHUTDOWN_S ? 3 : 2)
            : in->stopped   ? (t - in->stopped >= SHUTDOWN_S ? 5 : 4)
                            : (t - in->launched >= in->pending_s ? 1 : 0);
    if (code)
        *code = S[k].code;
    return S[k].name;
}

int fe_delete_security_group(fe_req *req, fe_q *q)
{
    fe_group *g = group_by_id(fe_P(q, "GroupId"));
    if (!g)
        return fe_fail(req, "InvalidGroup.NotFound", "The security group '%s' does not exist",
                    fe_P(q, "GroupId") ? fe_P(q, "GroupId") : "(none)");
    for (int i = 0; i < fe_w.ninsts; i++)
        if (!strcmp(fe_w.insts[i].group, g->id) && strcmp(inst_state(&fe_w.insts[i], NULL), "terminated"))
            return fe_fail(req, "DependencyViolation", "resource %s has a dependent object", g->id);
    g->alive = 0;
    struct evbuffer *b = fe_open("DeleteSecurityGroup");
    fe_xs(b, "return", "true");
    return fe_close(req, b, "DeleteSecurityGroup");
}

/* Known by its id and listed (--notfound-s: not yet, right after its launch). */
static int inst_seen(const fe_inst *in)
{
    return fe_now() >= in->seen_at;
}

static fe_inst *inst_by_id(const char *id)
{
    for (int i = 0; id && i < fe_w.ninsts; i++)
        if (!strcmp(fe_w.insts[i].id, id))
            return inst_seen(&fe_w.insts[i]) ? &fe_w.insts[i] : NULL;
    return NULL;
}

/* Instances whose user-data shutdown has come power off: the sshd stops;
 * then terminated or stopped, as their InstanceInitiatedShutdownBehavior says. */
void fe_tick(void)
{
    double t = fe_now();
    for (int i = 0; i < fe_w.ninsts; i++) {
        fe_inst *in = &fe_w.insts[i];
        if (in->poweroff_at <= 0 || t < in->poweroff_at || in->terminating || in->stopped)
            continue;
        fe_vm_halt(&in->vm);
        in->by_itself = 1;
        if (!strcmp(in->on_shutdown, "terminate"))
            in->terminating = t;
        else
            in->stopped = t;
    }
}

/* The minutes N of `shutdown -h +N` in base64 user-data; -1 when none. */
static long user_data_minutes(const char *b64)
{
    static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char text[4096];
    size_t n = 0;
    unsigned v = 0;
    int bits = 0;
    for (const char *p = b64; p && *p && n + 1 < sizeof text; p++) {
        const char *k = strchr(A, *p);
        if (!k || !*p)
            continue; /* '=' and line breaks */
        v = v << 6 | (unsigned)(k - A);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            text[n++] = (char)(v >> bits & 0xff);
        }
    }
    text[n] = 0;
    const char *h = strstr(text, "shutdown -h +");
    return h ? strtol(h + 13, NULL, 10) : -1;
}

static void state_xml(struct evbuffer *b, const char *tag, const char *name, int code)
{
    evbuffer_add_printf(b, "<%s><code>%d</code><name>%s</name></%s>", tag, code, name, tag);
}

static void instance_xml(struct evbuffer *b, const fe_inst *in)
{
    int code;
    const char *st = inst_state(in, &code);
    int up = code == 0 || code == 16;
    char when[32];
    fe_iso(in->launched, when);
    fe_group *g = NULL;
    for (int i = 0; i < fe_w.ngroups; i++)
        if (!strcmp(fe_w.groups[i].id, in->group))
            g = &fe_w.groups[i];
    evbuffer_add_printf(b, "<item>");
    fe_xs(b, "instanceId", in->id);
    fe_xs(b, "imageId", in->image);
    state_xml(b, "instanceState", st, code);
    fe_xs(b, "privateDnsName", up ? "localhost" : "");
    fe_xs(b, "dnsName", "");
    fe_xs(b, "reason", in->by_itself ? "" : code == 48 || code == 32 ? "User initiated" : "");
    fe_xs(b, "keyName", in->key);
    fe_xi(b, "amiLaunchIndex", 0);
    fe_xs(b, "instanceType", in->type);
    fe_xs(b, "launchTime", when);
    evbuffer_add_printf(b, "<placement><availabilityZone>%s</availabilityZone><tenancy>default</tenancy>"
                           "</placement>", in->az);
    fe_xs(b, "privateIpAddress", up ? "127.0.0.1" : NULL);
    fe_xs(b, "ipAddress", code == 16 ? "127.0.0.1" : NULL);
    fe_xs(b, "vpcId", fe_w.vpc);
    fe_xs(b, "architecture", in->arch);
    fe_xs(b, "rootDeviceType", "ebs");
    fe_xs(b, "rootDeviceName", "/dev/xvda");
    evbuffer_add_printf(b, "<groupSet><item>");
    fe_xs(b, "groupId", in->group);
    fe_xs(b, "groupName", g ? g->name : "");
    evbuffer_add_printf(b, "</item></groupSet>");
    fe_xs(b, "clientToken", in->token);
    fe_xs(b, "virtualizationType", "hvm");
    fe_xs(b, "hypervisor", "xen");
    if (in->by_itself)
        evbuffer_add_printf(b, "<stateReason><code>Client.InstanceInitiatedShutdown</code><message>"
                               "Client.InstanceInitiatedShutdown: Instance initiated shutdown</message></stateReason>");
    else if (in->terminating)
        evbuffer_add_printf(b, "<stateReason><code>Client.UserInitiatedShutdown</code><message>"
                               "Client.UserInitiatedShutdown: User initiated shutdown</message></stateReason>");
    else if (code == 0)
        evbuffer_add_printf(b, "<stateReason><code>pending</code><message>pending</message></stateReason>");
    fe_tags_xml(b, in->id);
    evbuffer_add_printf(b, "</item>");
}

static void reservation_xml(struct evbuffer *b, const fe_inst *in)
{
    fe_xs(b, "reservationId", in->resv);
    fe_xs(b, "ownerId", FE_ACCOUNT);
    evbuffer_add_printf(b, "<groupSet/><instancesSet>");
    instance_xml(b, in);
    evbuffer_add_printf(b, "</instancesSet>");
}

/* Does the group let tcp 22 in from a CIDR holding 127.0.0.1? */
static int lets_loopback_in(const fe_group *g)
{
    for (int j = 0; g && j < g->nin; j++) {
        const fe_rule *r = &g->in[j];
        unsigned a, b, c, d, len;
        if (sscanf(r->cidr, "%u.%u.%u.%u/%u", &a, &b, &c, &d, &len) != 5)
            continue;
        uint32_t net = a << 24 | b << 16 | c << 8 | d, lo = 0x7f000001u;
        uint32_t mask = len == 0 ? 0 : 0xffffffffu << (32 - len);
        int proto = !strcmp(r->proto, "tcp") || !strcmp(r->proto, "6") || !strcmp(r->proto, "-1");
        if (proto && ((r->from <= 22 && 22 <= r->to) || !strcmp(r->proto, "-1")) && (net & mask) == (lo & mask))
            return 1;
    }
    return 0;
}

/* The first --ssh-port no instance that is not terminating uses; 0 when none. */
static int free_port(void)
{
    for (int p = 0; p < fe_w.nports; p++) {
        int used = 0;
        for (int i = 0; i < fe_w.ninsts; i++)
            used |= !fe_w.insts[i].terminating && fe_w.insts[i].port == fe_w.ssh_ports[p];
        if (!used)
            return fe_w.ssh_ports[p];
    }
    return 0;
}

static int run_checks(fe_req *req, fe_q *q, fe_group **g)
{
    const char *image = fe_P(q, "ImageId"), *type = fe_P(q, "InstanceType"), *key = fe_P(q, "KeyName");
    const char *iarch = fe_image_arch(image), *tarch = fe_type_arch(type);
    if (!iarch)
        return fe_fail(req, "InvalidAMIID.NotFound", "The image id '[%s]' does not exist", image ? image : "");
    if (!tarch)
        return fe_fail(req, "InvalidParameterValue", "Invalid value '%s' for InstanceType.", type ? type : "");
    if (strcmp(iarch, tarch))
        return fe_fail(req, "InvalidParameterValue",
                       "The architecture '%s' of the specified instance type does not match the architecture '%s' "
                       "of the specified AMI.", tarch, iarch);
    if (!key || !key_by_name(key))
        return fe_fail(req, "InvalidKeyPair.NotFound", "The key pair '%s' does not exist", key ? key : "");
    if (!(*g = group_by_id(fe_P(q, "SecurityGroupId.1"))))
        return fe_fail(req, "InvalidGroup.NotFound", "The security group '%s' does not exist",
                    fe_P(q, "SecurityGroupId.1") ? fe_P(q, "SecurityGroupId.1") : "");
    if (strcmp(fe_P(q, "MinCount") ? fe_P(q, "MinCount") : "", "1") || strcmp(fe_P(q, "MaxCount") ? fe_P(q, "MaxCount") : "", "1"))
        return fe_fail(req, "Unsupported", "The fake runs one instance at a time: MinCount and MaxCount 1");
    if (fe_fault("refuse-run"))
        return fe_fail(req, "VcpuLimitExceeded",
                    "You have requested more vCPU capacity than your current vCPU limit of 0 allows for the instance "
                    "bucket that the specified instance type belongs to.");
    const char *az = fe_P(q, "Placement.AvailabilityZone");
    if (az && strcmp(az, "fake-1a") && strcmp(az, "fake-1b") && strcmp(az, "fake-1c"))
        return fe_fail(req, "InvalidParameterValue", "Invalid availability zone: [%s]", az);
    if (fe_fault("no-capacity") && (!az || !strcmp(az, "fake-1a")))
        return fe_fail(req, "InsufficientInstanceCapacity",
                       "We currently do not have sufficient %s capacity in the Availability Zone you requested "
                       "(fake-1a). Our system will be working on provisioning additional capacity. You can currently "
                       "get %s capacity by not specifying an Availability Zone in your request or choosing fake-1b, "
                       "fake-1c.", fe_P(q, "InstanceType"), fe_P(q, "InstanceType"));
    if (!free_port())
        return fe_fail(req, "InstanceLimitExceeded",
                       "The fake runs one instance at a time per --ssh-port (%d): %s is not terminated", fe_w.nports,
                       fe_w.insts[fe_w.ninsts - 1].id);
    if (fe_w.ninsts == FE_MAXN)
        return fe_fail(req, "InstanceLimitExceeded", "Your quota allows for 0 more running instance(s).");
    return 0;
}

int fe_run_instances(fe_req *req, fe_q *q)
{
    const char *token = fe_P(q, "ClientToken");
    fe_inst *in = NULL;
    for (int i = 0; token && i < fe_w.ninsts; i++) /* the same token: the same instance, as AWS */
        if (!strcmp(fe_w.insts[i].token, token))
            in = &fe_w.insts[i];
    if (!in) {
        fe_group *g = NULL;
        if (run_checks(req, q, &g) != 0)
            return -1;
        in = &fe_w.insts[fe_w.ninsts];
        memset(in, 0, sizeof *in);
        fe_new_id(in->id, sizeof in->id, "i");
        fe_new_id(in->resv, sizeof in->resv, "r");
        snprintf(in->image, sizeof in->image, "%s", fe_P(q, "ImageId"));
        snprintf(in->type, sizeof in->type, "%s", fe_P(q, "InstanceType"));
        snprintf(in->arch, sizeof in->arch, "%s", fe_type_arch(in->type));
        snprintf(in->key, sizeof in->key, "%s", fe_P(q, "KeyName"));
        snprintf(in->group, sizeof in->group, "%s", g->id);
        snprintf(in->token, sizeof in->token, "%s", token ? token : "");
        snprintf(in->az, sizeof in->az, "%s",
                 fe_P(q, "Placement.AvailabilityZone") ? fe_P(q, "Placement.AvailabilityZone") : "fake-1a");
        in->launched = fe_now();
        in->pending_s = fe_draw(fe_w.pending_lo, fe_w.pending_hi);
        in->console_at = in->launched + in->pending_s + fe_draw(fe_w.console_lo, fe_w.console_hi);
        in->seen_at = in->launched + fe_w.notfound_s;
        const char *beh = fe_P(q, "InstanceInitiatedShutdownBehavior");
        snprintf(in->on_shutdown, sizeof in->on_shutdown, "%s", beh && !strcmp(beh, "terminate") ? "terminate" : "stop");
        long minutes = user_data_minutes(fe_P(q, "UserData"));
        in->poweroff_at = minutes >= 0 ? in->launched + in->pending_s + (double)minutes * fe_w.minute_s : 0;
        char dir[600], err[UT_ERRLEN];
        snprintf(dir, sizeof dir, "%s/%s", fe_w.dir, in->id);
        int mode = !lets_loopback_in(g) ? FE_VM_CLOSED : fe_fault("silent-ssh") ? FE_VM_SILENT
                                                                                                : FE_VM_SSHD;
        in->port = free_port();
        if (fe_vm_boot(&in->vm, dir, key_by_name(in->key)->pub, in->port, mode, err, sizeof err) != 0)
            return fe_fail(req, "InternalError", "%s", err);
        fe_w.ninsts++;
        fe_tag_specs(q, "instance", in->id);
    }
    struct evbuffer *b = fe_open("RunInstances");
    reservation_xml(b, in);
    if (fe_fault("slow-run"))
        sleep(5); /* made, not yet answered: the launch's caller may be interrupted now */
    return fe_close(req, b, "RunInstances");
}

static const char *inst_attr(const void *res, const char *name, int *known)
{
    const fe_inst *in = res;
    *known = 1;
    if (!strcmp(name, "instance-state-name"))
        return inst_state(in, NULL);
    if (!strcmp(name, "instance-id"))
        return in->id;
    if (!strcmp(name, "instance-type"))
        return in->type;
    if (!strcmp(name, "key-name"))
        return in->key;
    if (!strcmp(name, "instance.group-id"))
        return in->group;
    *known = 0;
    return NULL;
}

int fe_describe_instances(fe_req *req, fe_q *q)
{
    for (int m = 1; fe_Pf(q, "InstanceId.%d", m); m++)
        if (!inst_by_id(fe_Pf(q, "InstanceId.%d", m)))
            return fe_fail(req, "InvalidInstanceID.NotFound", "The instance ID '%s' does not exist",
                        fe_Pf(q, "InstanceId.%d", m));
    struct evbuffer *b = fe_open("DescribeInstances");
    evbuffer_add_printf(b, "<reservationSet>");
    for (int i = 0; i < fe_w.ninsts; i++) {
        fe_inst *in = &fe_w.insts[i];
        int want = !fe_P(q, "InstanceId.1") && inst_seen(in);
        for (int m = 1; fe_Pf(q, "InstanceId.%d", m); m++)
            want |= !strcmp(fe_Pf(q, "InstanceId.%d", m), in->id);
        int ok = want ? fe_filters(req, q, in->id, in, inst_attr) : 0;
        if (ok < 0) {
            evbuffer_free(b);
            return -1;
        }
        if (!ok)
            continue;
        evbuffer_add_printf(b, "<item>");
        reservation_xml(b, in);
        evbuffer_add_printf(b, "</item>");
    }
    evbuffer_add_printf(b, "</reservationSet>");
    return fe_close(req, b, "DescribeInstances");
}

int fe_terminate_instances(fe_req *req, fe_q *q)
{
    for (int m = 1; fe_Pf(q, "InstanceId.%d", m); m++)
        if (!inst_by_id(fe_Pf(q, "InstanceId.%d", m)))
            return fe_fail(req, "InvalidInstanceID.NotFound", "The instance ID '%s' does not exist",
                        fe_Pf(q, "InstanceId.%d", m));
    if (!fe_P(q, "InstanceId.1"))
        return fe_fail(req, "MissingParameter", "The request must contain the parameter InstanceId");
    struct evbuffer *b = fe_open("TerminateInstances");
    evbuffer_add_printf(b, "<instancesSet>");
    for (int m = 1; fe_Pf(q, "InstanceId.%d", m); m++) {
        fe_inst *in = inst_by_id(fe_Pf(q, "InstanceId.%d", m));
        int before;
        const char *was = inst_state(in, &before);
        if (!in->terminating) {
            fe_vm_halt(&in->vm);
            in->terminating = fe_now();
            in->by_itself = 0; /* (a stopped one terminated now: by the user) */
        }
        int code;
        const char *st = inst_state(in, &code);
        evbuffer_add_printf(b, "<item>");
        fe_xs(b, "instanceId", in->id);
        state_xml(b, "currentState", st, code);
        state_xml(b, "previousState", was, before);
        evbuffer_add_printf(b, "</item>");
    }
    evbuffer_add_printf(b, "</instancesSet>");
    return fe_close(req, b, "TerminateInstances");
}

/* The console as AWS gives it: base64 in <output>. */
int fe_get_console_output(fe_req *req, fe_q *q)
{
    fe_inst *in = inst_by_id(fe_P(q, "InstanceId"));
    if (!in)
        return fe_fail(req, "InvalidInstanceID.NotFound", "The instance ID '%s' does not exist",
                    fe_P(q, "InstanceId") ? fe_P(q, "InstanceId") : "");
    char *text = NULL, err[UT_ERRLEN], when[32];
    size_t n = 0;
    if (ut_read_file(in->vm.console, &text, &n, err, sizeof err) != 0)
        n = 0;
    fe_iso(fe_now(), when);
    if (fe_fault("no-console") || fe_now() < in->console_at)
        n = 0; /* as an instance type without a serial console, or a console not yet written: no output */
    struct evbuffer *b = fe_open("GetConsoleOutput");
    fe_xs(b, "instanceId", in->id);
    fe_xs(b, "timestamp", when);
    if (n > 0) {
        evbuffer_add_printf(b, "<output>");
        fe_b64(b, (const unsigned char *)text, n);
        evbuffer_add_printf(b, "</output>");
    }
    free(text);
    return fe_close(req, b, "GetConsoleOutput");
}

static int known_resource(const char *id)
{
    for (int i = 0; i < fe_w.nkeys; i++)
        if (fe_w.keys[i].alive && !strcmp(fe_w.keys[i].id, id))
            return 1;
    return group_by_id(id) || inst_by_id(id) || !strcmp(id, fe_w.vpc);
}

int fe_create_tags(fe_req *req, fe_q *q)
{
    if (!fe_P(q, "ResourceId.1") || !fe_P(q, "Tag.1.Key"))
        return fe_fail(req, "MissingParameter", "The request must contain the parameters ResourceId and Tag");
    for (int m = 1; fe_Pf(q, "ResourceId.%d", m); m++)
        if (!known_resource(fe_Pf(q, "ResourceId.%d", m)))
            return fe_fail(req, "InvalidID", "The ID '%s' is not valid", fe_Pf(q, "ResourceId.%d", m));
    for (int m = 1; fe_Pf(q, "ResourceId.%d", m); m++)
        for (int t = 1; fe_Pf(q, "Tag.%d.Key", t); t++)
            fe_tag_set(fe_Pf(q, "ResourceId.%d", m), fe_Pf(q, "Tag.%d.Key", t), fe_Pf(q, "Tag.%d.Value", t));
    struct evbuffer *b = fe_open("CreateTags");
    fe_xs(b, "return", "true");
    return fe_close(req, b, "CreateTags");
}

