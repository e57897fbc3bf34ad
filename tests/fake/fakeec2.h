/* fakeec2: the local EC2 endpoint's world and its reply helpers, shared by
 * tests/fake/fakeec2.c (the server, the fixed world: images, instance types, the
 * VPC) and tests/fake/fakeec2res.c (what a client creates: key pairs, security
 * groups, instances, tags).  What the program does: fakeec2.c's head.
 *
 * One world per process (fe_w), in fixed arrays; nothing is ever freed
 * before exit but an instance's sshd (fe_vm_halt).  Every action takes the
 * request and its decoded parameters and replies exactly once: 0 with an
 * XML answer, -1 after fe_fail replied with an EC2 error.
 */
#ifndef TESTS_FAKEEC2_H
#define TESTS_FAKEEC2_H

#include <event2/buffer.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "fakeec2vm.h"
#include "util.h"

#define FE_ACCOUNT "123456789012" /* AWS's documented example account */
#define FE_MAXN 32

typedef struct {
    char res[32], key[128], value[256];
} fe_tag;
typedef struct {
    char id[32], name[256], type[16], fp[128], pub[600];
    int alive;
} fe_key;
typedef struct {
    char proto[8], cidr[64], desc[256], id[32];
    int from, to;
} fe_rule;
typedef struct {
    char id[32], name[256], desc[256];
    fe_rule in[16];
    int nin, alive;
} fe_group;
typedef struct {
    char id[32], resv[32], image[32], type[32], key[256], group[32], token[80], arch[16], az[16];
    double launched, terminating; /* 0: not terminating */
    double pending_s;             /* drawn at launch (--pending) */
    double console_at;            /* the console has output from then on (--console-late) */
    double seen_at;               /* known by its id from then on (--notfound-s) */
    double poweroff_at;           /* its user-data's `shutdown -h +N` (--minute-s); 0: none */
    double stopped;               /* powered off with behaviour stop: stopped since then; 0: not */
    int by_itself;                /* it shut itself down (its stateReason says so) */
    char on_shutdown[16];         /* InstanceInitiatedShutdownBehavior: stop (AWS's default) or terminate */
    int disk_gb;                  /* BlockDeviceMapping.1.Ebs.VolumeSize (8: the image's) */
    int port;                     /* its sshd's, one of fe_world.ssh_ports */
    fe_vm vm;
} fe_inst;

typedef struct {
    char action[48];
    int left; /* requests of it still to answer RequestLimitExceeded */
} fe_throttle;

typedef struct {
    const char *dir, *fault, *log;
    int ssh_ports[FE_MAXN], nports; /* --ssh-port: one instance at a time per port */
    char vpc[32];
    fe_tag tags[256];
    int ntags;
    fe_key keys[FE_MAXN];
    int nkeys;
    fe_group groups[FE_MAXN];
    int ngroups;
    fe_inst insts[FE_MAXN];
    int ninsts;
    unsigned long reqno;
    ut_rng rng;
    /* fidelity (fakeec2.c's head): drawn times, in seconds */
    double pending_lo, pending_hi, console_lo, console_hi, notfound_s, minute_s;
    fe_throttle thr[8];
    int nthr;
} fe_world;

extern fe_world fe_w;

typedef struct evhttp_request fe_req;
typedef struct evkeyvalq fe_q;

double fe_now(void);
double fe_draw(double lo, double hi); /* uniform in [lo, hi] from fe_w.rng */
int fe_fault(const char *name);       /* 1 when --fault lists it */
void fe_log(const char *action, const char *code); /* --log: "Action" or "Action Code" */
void fe_tick(void);                   /* instances whose time has come power off */
void fe_iso(double t, char buf[32]);                  /* 2024-07-17T18:15:42.000Z */
void fe_new_id(char *out, size_t n, const char *prefix); /* prefix-0 + 16 hex digits */
const char *fe_P(fe_q *q, const char *name);          /* a parameter, or NULL */
const char *fe_Pf(fe_q *q, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void fe_xs(struct evbuffer *b, const char *tag, const char *v); /* <tag>v</tag>, escaped; nothing when v is NULL */
void fe_xi(struct evbuffer *b, const char *tag, long v);
void fe_b64(struct evbuffer *b, const unsigned char *s, size_t n);
int fe_fail(fe_req *req, const char *code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int fe_fail_status(fe_req *req, int status, const char *code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
struct evbuffer *fe_open(const char *action);           /* <ActionResponse xmlns=...><requestId/> */
int fe_close(fe_req *req, struct evbuffer *b, const char *action); /* </ActionResponse>, sent, 0 */

const char *fe_tag_of(const char *res, const char *key);
void fe_tag_set(const char *res, const char *key, const char *value);
void fe_tags_xml(struct evbuffer *b, const char *res);
void fe_tag_specs(fe_q *q, const char *type, const char *res); /* TagSpecification.N for this resource type */

/* A resource's attribute by a filter's name (*known 0: no such filter). */
typedef const char *(*fe_attr_fn)(const void *res, const char *name, int *known);
/* 1 when the resource passes every Filter.N (tag:K, tag-key, attributes;
 * wildcards), 0 when not, -1 (replied) on a filter it does not know. */
int fe_filters(fe_req *req, fe_q *q, const char *id, const void *res, fe_attr_fn attr);

/* The fixed world (fakeec2.c): an image's architecture, an instance type's. NULL when unknown. */
const char *fe_image_arch(const char *image_id);
const char *fe_type_arch(const char *type);

/* The actions of fakeec2res.c. */
int fe_create_key_pair(fe_req *req, fe_q *q);
int fe_describe_key_pairs(fe_req *req, fe_q *q);
int fe_delete_key_pair(fe_req *req, fe_q *q);
int fe_create_security_group(fe_req *req, fe_q *q);
int fe_describe_security_groups(fe_req *req, fe_q *q);
int fe_authorize_ingress(fe_req *req, fe_q *q);
int fe_revoke_ingress(fe_req *req, fe_q *q);
int fe_delete_security_group(fe_req *req, fe_q *q);
int fe_run_instances(fe_req *req, fe_q *q);
int fe_describe_instances(fe_req *req, fe_q *q);
int fe_terminate_instances(fe_req *req, fe_q *q);
int fe_get_console_output(fe_req *req, fe_q *q);
int fe_create_tags(fe_req *req, fe_q *q);

#endif
