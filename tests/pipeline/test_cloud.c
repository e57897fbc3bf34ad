/* pipeline/cloud/cloud.sh end to end, with the real AWS command line client
 * (Debian's awscli, /usr/bin/aws) pointed by ENDPOINT_URL (aws
 * --endpoint-url) at build/bin/fakeec2 on 127.0.0.1, with made-up
 * credentials (AWS's documented example key): the fake's instance is a
 * throwaway sshd on 127.0.0.1 logging in as root, its serial console a file
 * its sessions are told to write to (tests/fake/fakeec2vm.h).  Nothing leaves
 * this machine.
 *
 * The walk check -> access -> launch -> wait -> setup -> start -> status ->
 * fetch -> delete -> cost on the tiny profile (setup's `make deps build
 * prepare` runs for real in a fresh folder standing for the machine's home;
 * the measurement uses tests/quiet_off.tsv and a 0.2 s run-on, as the other
 * study tests do, through QUIET and MEASURE_FLAGS); a refused launch and an
 * ssh that never answers leave nothing behind; cloud-check without
 * credentials says so in one line.  Issue 30: two machines with the default
 * OUT measure a fresh study of their own (CLOUD_DIR/study-<UTC>) and leave
 * the published results/ and provenance/ as committed; OUT=. is refused;
 * status reads the console only and demo waits for the schedule; make clean
 * keeps build/cloud/ and cloud-clean refuses while it lists anything alive;
 * cloud-cost's parts (machine, public IPv4, disk) against sums done by hand.
 * The endpoint as a real one can be: a throttled call made again; a machine
 * past MAX_HOURS powering itself off, status saying why; make cloud-study
 * through a full zone, a throttle, a late console, an id unknown right
 * after launch and a login that is not root, interrupted and resumed.
 * The aws client's own retries are left as a user has them.  Every state is read back from the fake
 * through the same aws client, so what "nothing is left" means is what AWS
 * would answer.
 *
 * Shared fixture: the build of the programs.  Three walks set a machine up
 * (setup's `make deps progs prepare` there, in a fresh folder standing for
 * its home), and compiling the lab there took 70 to 90 s of each on a quiet
 * 2-core machine (more beside the other lane).  The walk on one machine
 * (walk_from_check_to_delete_on_the_tiny_profile) keeps proving a fresh
 * machine end to end: its home starts empty and its setup compiles
 * everything (asserted: its setup.log compiles lab/base/util.c).  The other
 * two (two_machines_split_the_schedule_by_rounds, study_walk_...) find in
 * their fake home, before setup, a copy of this checkout's build of the
 * programs (`make print-progs` and their objects under build/lab,
 * build/fast, build/pipeline, copied with their times by cp -a, owned by
 * the login user), the one make test built just before the tests (its
 * TEST_NEEDS), when `make -q progs` says it is up to date here; their setup
 * still runs every step for real, and make's own up-to-date check there
 * finds nothing to compile (asserted: "Nothing to be done for 'progs'" in
 * their setup.log).  Were the programs here not up to date, the walk says so
 * and compiles there from scratch, as the first does.  What these two walks
 * prove (two machines splitting the rounds; a full zone, a throttle, a late
 * console, a non-root login) does not depend on where the objects were
 * compiled, only on setup's steps, which they still run. */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "tnet.h"
#include "tsh.h"

/* aux: the fake cloud's folders (/tmp); outd: the study fetched home, under
 * build/ and relative, so its records name no folder of this machine (the
 * verifier's machine-path rule; a published study lives in the repository) */
static char aux[64], outd[64], outbase[64], pgurl[512];
static char pgdir[64]; /* this test's own PostgreSQL (build/pgcloud-<pid>), so that two tests may run side by side */
static pid_t fake = -1;
static int ssh_port, ssh_port2; /* the second: two machines at once (0: one) */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}


/* 1 when something accepts connections on 127.0.0.1:port. */
static int port_open(int port)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int up = connect(s, (struct sockaddr *)&a, sizeof a) == 0;
    close(s);
    return up;
}

/* Waits up to `tenths` x 0.1 s for pid; 1 with its status in *st, else 0 after SIGKILL to its group. */
static int reap_or_kill(pid_t pid, int tenths, int *st)
{
    for (int i = 0; i < tenths; i++) {
        if (waitpid(pid, st, WNOHANG) == pid)
            return 1;
        usleep(100000);
    }
    kill(-pid, SIGKILL);
    return 0;
}

/* The tools the walk needs; 0 with a skip said when one is missing. */
static int can_run(const char *what)
{
    const char *why = NULL;
    if (access("/usr/bin/aws", X_OK) != 0)
        why = "no /usr/bin/aws (Debian's awscli: make deps)";
    else if (access("/usr/sbin/sshd", X_OK) != 0 || shf("command -v ssh ssh-keygen jq >/dev/null") != 0)
        why = "no sshd, ssh or jq (make deps)";
    else if (getuid() != 0)
        why = "needs root (the fake machine is an sshd on 127.0.0.1 logging in as root)";
    if (why)
        printf("cloud/%s: skipped: %s\n", what, why);
    return why == NULL;
}

/* The settings every step gets: the fake endpoint, made-up credentials,
 * the loopback machine, folders in aux. */
static void cloud_env(int endpoint)
{
    char v[512];
    snprintf(v, sizeof v, "/usr/bin:%s", getenv("PATH") ? getenv("PATH") : "/bin");
    setenv("PATH", v, 1); /* Debian's aws before any other */
    setenv("AWS_ACCESS_KEY_ID", "AKIAIOSFODNN7EXAMPLE", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", 1);
    setenv("AWS_EC2_METADATA_DISABLED", "true", 1); /* never ask 169.254.169.254 */
    snprintf(v, sizeof v, "%s/no-aws-config", aux);
    setenv("AWS_CONFIG_FILE", v, 1);
    setenv("AWS_SHARED_CREDENTIALS_FILE", v, 1);
    unsetenv("AWS_PROFILE");
    unsetenv("AWS_MAX_ATTEMPTS"); /* the client's own retries, as a user has them (a throttled call is retried) */
    unsetenv("AWS_RETRY_MODE");
    snprintf(v, sizeof v, "http://127.0.0.1:%d", endpoint);
    setenv("ENDPOINT_URL", v, 1);
    setenv("REGION", "eu-west-1", 1);
    setenv("MY_CIDR", "127.0.0.1/32", 1);
    setenv("TAG", "labtest", 1);
    setenv("SSH_USER", "root", 1);
    snprintf(v, sizeof v, "%d", ssh_port);
    setenv("SSH_PORT", v, 1);
    const char *dirs[][2] = {{"CLOUD_DIR", "cloud"}, {"REMOTE_DIR", "far"}};
    for (int i = 0; i < 2; i++) {
        snprintf(v, sizeof v, "%s/%s", aux, dirs[i][1]);
        setenv(dirs[i][0], v, 1);
    }
    setenv("OUT", outd, 1);
    setenv("PROFILE", "tiny", 1);
    setenv("GATE", "0", 1);
    setenv("QUIET", "tests/quiet_off.tsv", 1);
    setenv("MEASURE_FLAGS", "--settle-s 0.2", 1);
    setenv("PRICE_PER_HOUR", "0.0363", 1);
    const char *unset[] = {"INSTANCE_TYPE", "AMI", "FORCE", "WAIT_S", "DISK_GB", "MAX_HOURS", "PGURL", "AWS_SESSION_TOKEN",
                           "COUNT", "IPV4_PER_HOUR", "GP3_PER_GB_MONTH", "SMOKE", "STUDY_EVERY_S", "THROTTLE_TRIES"};
    for (size_t i = 0; i < sizeof unset / sizeof unset[0]; i++)
        unsetenv(unset[i]);
    unsetenv("MAKEFLAGS"); /* make test's own settings (and jobserver) are not the steps' */
    unsetenv("MFLAGS");
    unsetenv("MAKELEVEL");
}

/* build/bin/fakeec2 with a fault (or NULL), one machine at a time or two,
 * and more of its options (extra, NULL-terminated, or NULL); the environment set for it. */
static void start_fake_x(const char *fault, int machines, const char *const *extra)
{
    ssh_port = tnet_free_port();
    ssh_port2 = machines > 1 ? tnet_free_port() : 0;
    char outp[128], port[32], dir[128], log[128];
    snprintf(outp, sizeof outp, "%s/fake.out", aux);
    snprintf(dir, sizeof dir, "%s/ec2", aux);
    snprintf(log, sizeof log, "%s/actions", aux);
    if (ssh_port2)
        snprintf(port, sizeof port, "%d,%d", ssh_port, ssh_port2);
    else
        snprintf(port, sizeof port, "%d", ssh_port);
    fake = fork();
    cr_assert(fake >= 0);
    if (fake == 0) {
        int fd = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 1);
        dup2(fd, 2);
        const char *argv[32] = {"build/bin/fakeec2", "--dir", dir, "--ssh-port", port, "--log", log};
        int n = 7;
        if (fault) {
            argv[n++] = "--fault";
            argv[n++] = fault;
        }
        for (int i = 0; extra && extra[i] && n < 31; i++)
            argv[n++] = extra[i];
        argv[n] = NULL;
        execv("build/bin/fakeec2", (char *const *)argv);
        _exit(127);
    }
    int endpoint = 0;
    for (int i = 0; i < 200 && !endpoint; i++) {
        char *t = NULL, err[UT_ERRLEN];
        size_t n;
        if (ut_read_file(outp, &t, &n, err, sizeof err) == 0)
            sscanf(t, "fakeec2: listening on 127.0.0.1 port %d", &endpoint);
        free(t);
        if (!endpoint)
            usleep(50000);
    }
    cr_assert(endpoint > 0, "fakeec2 did not start");
    cloud_env(endpoint);
    if (ssh_port2)
        setenv("SSH_PORT", port, 1); /* machine k's port, the k-th (the fake machines share 127.0.0.1) */
}

static void start_fake_n(const char *fault, int machines) { start_fake_x(fault, machines, NULL); }
static void start_fake(const char *fault) { start_fake_x(fault, 1, NULL); }

static void setup(void)
{
    snprintf(aux, sizeof aux, "/tmp/labcloudXXXXXX");
    cr_assert_not_null(mkdtemp(aux));
    snprintf(outd, sizeof outd, "build/tests/cloudoutXXXXXX");
    (void)!system("mkdir -p build/tests");
    cr_assert_not_null(mkdtemp(outd));
    snprintf(outbase, sizeof outbase, "%s", outd); /* outd may move into it (the default OUT) */
    pgurl[0] = 0;
}

static void drop_user(void); /* the study walk's login user, when it made one */

static void teardown(void)
{
    drop_user();
    if (fake > 0) { /* its sshds go with it */
        kill(fake, SIGTERM);
        waitpid(fake, NULL, 0);
        fake = -1;
    }
    /* a measurement still running there (a failed walk) is stopped */
    shf("p=$(cat %s/far/build/cloud-run/pid 2>/dev/null) && [ -n \"$p\" ] && pkill -TERM -s \"$p\" 2>/dev/null; true",
        aux);
    shf("p=$(cat %s/cloud/run/pid 2>/dev/null) && [ -n \"$p\" ] && pkill -TERM -s \"$p\" 2>/dev/null; true", aux);
    shf("p=$(cat %s/cloud/run/pid 2>/dev/null) && [ -n \"$p\" ] && pkill -TERM -s \"$p\" 2>/dev/null; true", outbase);
    if (pgurl[0]) /* stopped, then removed with the folder it may live in (pg.sh's location) */
        shf("bash pipeline/common/pg.sh stop %s > /dev/null 2>&1; "
            "l=$(cat %s/location 2>/dev/null) && [ -n \"$l\" ] && rm -rf \"$(dirname \"$l\")\"; "
            "s=$(cat %s/sockdir 2>/dev/null) && [ -n \"$s\" ] && rm -rf \"$s\"; rm -rf %s",
            pgdir, pgdir, pgdir, pgdir);
    shf("rm -rf %s %s", aux, outbase);
}

TestSuite(cloud, .init = setup, .fini = teardown, .timeout = 900);

/* make -s cloud-STEP with the environment set; its output (stdout and
 * stderr) in *out (the caller frees, and it is printed but for status),
 * make's exit code. */
static int step(const char *name, char **out)
{
    char log[128];
    snprintf(log, sizeof log, "%s/step.log", aux);
    int rc = shf("timeout 600 make -s cloud-%s > %s 2>&1", name, log);
    *out = slurp(log);
    if (strcmp(name, "status"))
        printf("---- make cloud-%s: exit %d\n%s", name, rc, *out);
    return rc;
}

/* The fake's answer through the same client: aws ec2 ARGS --output text. */
static char *ask(const char *args)
{
    char log[128];
    snprintf(log, sizeof log, "%s/ask.out", aux);
    cr_assert_eq(shf("aws --region eu-west-1 --endpoint-url \"$ENDPOINT_URL\" --output text ec2 %s > %s", args, log),
                 0, "aws ec2 %s", args);
    return slurp(log);
}

/* Nothing tagged Project=labtest alive in the fake, nothing left in the state folder, the port closed. */
static void nothing_left(void)
{
    char *t = ask("describe-instances --filters Name=tag:Project,Values=labtest --query "
                  "'Reservations[].Instances[].State.Name'");
    cr_assert(!strstr(t, "running") && !strstr(t, "pending") && !strstr(t, "shutting-down"), "instances: %s", t);
    free(t);
    t = ask("describe-security-groups --filters Name=tag:Project,Values=labtest --query 'SecurityGroups[].GroupId'");
    cr_assert_str_empty(t, "security groups left: %s", t);
    free(t);
    t = ask("describe-key-pairs --query 'KeyPairs[].KeyName'");
    cr_assert_str_empty(t, "key pairs left: %s", t);
    free(t);
    const char *gone[] = {"key", "key_name", "group_id", "m1/instance_id", "m1/address"};
    for (int i = 0; i < 5; i++) {
        char p[128];
        snprintf(p, sizeof p, "%s/cloud/%s", aux, gone[i]);
        cr_assert_neq(access(p, F_OK), 0, "%s is still there", p);
    }
    cr_assert(!port_open(ssh_port), "something still listens on the machine's port %d", ssh_port);
    cr_assert(!ssh_port2 || !port_open(ssh_port2), "something still listens on m2's port %d", ssh_port2);
}

/* a JSON file of the study fetched home ("results/..." under outd) */
static json_t *load(const char *rel)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", outd, rel);
    json_error_t je;
    json_t *j = json_load_file(p, 0, &je);
    cr_assert_not_null(j, "%s: %s", p, je.text);
    return j;
}

/* PostgreSQL for fetch's collect and ap, the test's own (stopped and
 * removed by teardown): its URL in pgurl. */
static void start_pg(void)
{
    char p[128];
    snprintf(pgdir, sizeof pgdir, "build/pgcloud-%d", (int)getpid());
    cr_assert_eq(shf("bash pipeline/common/pg.sh start %s > %s/pgurl", pgdir, aux), 0);
    snprintf(p, sizeof p, "%s/pgurl", aux);
    char *u = slurp(p);
    snprintf(pgurl, sizeof pgurl, "%.*s", (int)strcspn(u, "\n"), u);
    free(u);
}

/* The shared fixture (the file's head): this checkout's build of the
 * programs copied into a fake machine's home (HOME/build), owned by OWNER
 * (NULL: root), before that machine's setup; 1 when copied, 0 with the
 * reason printed when the programs here are not up to date (the walk then
 * compiles them there from scratch). */
static int share_build(const char *what, const char *home, const char *owner)
{
    if (shf("unset MAKEFLAGS MFLAGS MAKELEVEL; make -q progs > /dev/null 2>&1") != 0) {
        printf("cloud/%s: not sharing the build: the programs here are not up to date (make progs); "
               "setup compiles them there from scratch\n", what);
        return 0;
    }
    cr_assert_eq(shf("unset MAKEFLAGS MFLAGS MAKELEVEL; mkdir -p %s/build/bin && cp -a build/lab build/fast build/pipeline %s/build/ && "
                     "cp -a $(make -s print-progs) %s/build/bin/", home, home, home), 0, "copying the build into %s", home);
    if (owner)
        cr_assert_eq(shf("chown -R %s: %s", owner, home), 0);
    printf("cloud/%s: the programs built here copied into the machine's home %s (setup there finds them built)\n",
           what, home);
    return 1;
}

/* 1 when machine M's setup.log (under CLOUD_DIR) holds NEEDLE. */
static int setup_log_has(const char *cdir, const char *m, const char *needle)
{
    char p[192];
    snprintf(p, sizeof p, "%s/%s/setup.log", cdir, m);
    char *t = slurp(p);
    int has = strstr(t, needle) != NULL;
    free(t);
    return has;
}

/* check, access twice, launch twice, delete refused before fetch, wait. */
static void walk_to_the_machine(void)
{
    char *t;
    cr_assert_eq(step("check", &t), 0);
    /* the newest available arm64 Debian 12 of Debian's owner: not the
     * backports one, not another owner's newer one, not the pending one */
    cr_assert(strstr(t, "image ami-0f00000000000a002 debian-12-arm64-20240717-1811"), "%s", t);
    cr_assert(strstr(t, "nothing tagged Project=labtest exists"), "%s", t);
    free(t);
    cr_assert_eq(step("access", &t), 0);
    cr_assert_null(strstr(t, "PRIVATE KEY"), "the key was printed");
    free(t);
    char p[128];
    snprintf(p, sizeof p, "%s/cloud/key", aux);
    struct stat sb;
    cr_assert_eq(stat(p, &sb), 0);
    cr_assert_eq(sb.st_mode & 0777, 0600, "the private key's mode is %o", sb.st_mode & 0777);
    t = slurp(p);
    cr_assert(!strncmp(t, "-----BEGIN OPENSSH PRIVATE KEY-----", 35));
    free(t);
    cr_assert_eq(step("access", &t), 0);
    cr_assert(strstr(t, "key pair lab-labtest exists"), "%s", t);
    free(t);
    /* your address changed: port 22 opens to the new one and closes to the old */
    setenv("MY_CIDR", "127.0.0.2/32", 1);
    cr_assert_eq(step("access", &t), 0);
    free(t);
    t = ask("describe-security-groups --query 'SecurityGroups[].IpPermissions[].IpRanges[].CidrIp'");
    cr_assert_str_eq(t, "127.0.0.2/32\n", "port 22 is open to %s", t);
    free(t);
    setenv("MY_CIDR", "127.0.0.1/32", 1);
    cr_assert_eq(step("access", &t), 0);
    cr_assert(strstr(t, "closed port 22 to 127.0.0.2/32"), "%s", t);
    free(t);
    t = ask("describe-security-groups --query 'SecurityGroups[].IpPermissions[].IpRanges[].CidrIp'");
    cr_assert_str_eq(t, "127.0.0.1/32\n", "port 22 is open to %s", t);
    free(t);
    cr_assert_eq(step("launch", &t), 0);
    free(t);
    cr_assert_eq(step("launch", &t), 0);
    cr_assert(strstr(t, "is already"), "%s", t);
    free(t);
    cr_assert_neq(step("delete", &t), 0);
    cr_assert(strstr(t, "the results are not home yet"), "%s", t);
    free(t);
    cr_assert_eq(step("wait", &t), 0);
    cr_assert(strstr(t, "host key from the console"), "%s", t);
    free(t);
}

/* start returns while the schedule runs; status follows it from the console to "done exit 0". */
static void start_and_follow(void)
{
    char *t;
    double t0 = now_s();
    cr_assert_eq(step("start", &t), 0);
    free(t);
    double started = now_s() - t0;
    cr_assert(started < 20, "start took %.1f s: not detached", started);
    int done = 0, midway = 0;
    for (int i = 0; i < 150 && !done; i++) {
        sleep(2);
        cr_assert_eq(step("status", &t), 0);
        cr_assert(strstr(t, "(from the serial console)"), "%s", t);
        done = strstr(t, "done exit 0") != NULL;
        midway |= !done && strstr(t, " of 18 ") != NULL;
        free(t);
    }
    cr_assert(done, "the measurement did not end in 300 s");
    cr_assert_eq(step("status", &t), 0);
    printf("---- make cloud-status (the last)\n%s", t);
    cr_assert(strstr(t, "18 runs reported"), "%s", t);
    free(t);
    printf("cloud/walk: start returned in %.1f s; progress seen while it ran: %s\n", started, midway ? "yes" : "no");
}

static void check_fetched(void)
{
    json_t *v = load("results/verified.json");
    cr_assert(json_is_true(json_object_get(v, "ok")), "verified.json is not ok");
    json_decref(v);
    char p[128];
    snprintf(p, sizeof p, "%s/results/report.html", outd);
    cr_assert_eq(access(p, F_OK), 0, "no report");
    json_t *c = load("provenance/cloud.json");
    cr_assert_str_eq(json_string_value(json_object_get(c, "instance_type")), "c7g.medium");
    cr_assert_str_eq(json_string_value(json_object_get(c, "architecture")), "arm64");
    cr_assert_str_eq(json_string_value(json_object_get(c, "image_name")), "debian-12-arm64-20240717-1811");
    json_t *pf = json_object_get(c, "prepared_files");
    cr_assert(json_integer_value(json_object_get(pf, "compared")) >= 7);
    cr_assert_eq(json_array_size(json_object_get(pf, "differ")), 0, "the same machine prepared other files");
    json_decref(c);
    snprintf(p, sizeof p, "%s/provenance/cloud.json", outd);
    char *t = slurp(p);
    cr_assert(!strstr(t, "i-0") && !strstr(t, "sg-0") && !strstr(t, "ami-") && !strstr(t, "127.0.0.1"),
              "an id or an address in cloud.json: %s", t);
    free(t);
}

Test(cloud, walk_from_check_to_delete_on_the_tiny_profile)
{
    if (!can_run("walk"))
        cr_skip_test("see the line above");
    start_pg();
    char p[128];
    start_fake(NULL);
    setenv("PGURL", pgurl, 1);
    double t0 = now_s();
    walk_to_the_machine();
    char *t;
    cr_assert_eq(step("setup", &t), 0);
    cr_assert(strstr(t, "are the same as here") && strstr(t, "nice -10 allowed to root there (root)"), "%s", t);
    free(t);
    snprintf(p, sizeof p, "%s/cloud", aux);
    cr_assert(setup_log_has(p, "m1", "-c lab/base/util.c -o build/lab/base/util.o"),
              "the fresh machine's setup did not compile the lab (see %s/m1/setup.log)", p);
    cr_assert_neq(step("start", &t), 0); /* no smoke run yet */
    cr_assert(strstr(t, "no smoke run since its setup: make cloud-smoke first"), "%s", t);
    free(t);
    cr_assert_eq(step("smoke", &t), 0);
    cr_assert(strstr(t, "smoke there: 18 runs, each complete and its manifest re-hashed, the tester at nice -10 in "
                        "every one (root); its files removed there"), "%s", t);
    free(t);
    cr_assert_eq(shf("test ! -e %s/far/build/smoke", aux), 0, "the smoke run's files are still there");
    start_and_follow();
    cr_assert_eq(step("fetch", &t), 0);
    cr_assert(strstr(t, "18 runs home, each file matching its run.json"), "%s", t);
    free(t);
    check_fetched();
    cr_assert_eq(step("delete", &t), 0);
    cr_assert(strstr(t, "removed instance i-0") && strstr(t, "removed security group sg-0") &&
                  strstr(t, "removed key pair lab-labtest") && strstr(t, "nothing tagged Project=labtest is left"),
              "%s", t);
    free(t);
    nothing_left();
    cr_assert_eq(step("cost", &t), 0);
    free(t);
    json_t *c = load("results/cost.json"), *r = json_object_get(c, "rental");
    snprintf(p, sizeof p, "%s/cloud/m1/launch_utc", aux);
    char *launch = slurp(p);
    launch[strcspn(launch, "\n")] = 0;
    cr_assert_str_eq(json_string_value(json_object_get(r, "start_utc")), launch);
    cr_assert(json_real_value(json_object_get(r, "price_usd")) > 0);
    cr_assert_eq(json_real_value(json_object_get(r, "price_per_hour_usd")), 0.0363);
    free(launch);
    json_decref(c);
    /* every action the walk called is one the README lists, and these are all of them */
    cr_assert_eq(shf("grep -v ' ' %s/actions | sort -u | tr '\\n' ' ' | grep -qx 'AuthorizeSecurityGroupIngress CreateKeyPair "
                     "CreateSecurityGroup DeleteKeyPair DeleteSecurityGroup DescribeImages DescribeInstanceTypes "
                     "DescribeInstances DescribeKeyPairs DescribeSecurityGroups DescribeVpcs GetConsoleOutput "
                     "RevokeSecurityGroupIngress RunInstances TerminateInstances '", aux), 0, "the actions called differ from the README's");
    printf("cloud/walk: check to cost in %.0f s\n", now_s() - t0);
}

Test(cloud, a_refused_launch_leaves_nothing_behind)
{
    if (!can_run("refused_launch"))
        cr_skip_test("see the line above");
    start_fake("refuse-run");
    char *t;
    setenv("INSTANCE_TYPE", "t3.micro", 1); /* an x86_64 type: the amd64 image */
    cr_assert_eq(step("check", &t), 0);
    cr_assert(strstr(t, "t3.micro (x86_64), image ami-0f00000000000b002 debian-12-amd64-20240717-1811"), "%s", t);
    free(t);
    unsetenv("INSTANCE_TYPE");
    cr_assert_eq(step("access", &t), 0);
    free(t);
    cr_assert_neq(step("launch", &t), 0);
    cr_assert(strstr(t, "VcpuLimitExceeded"), "%s", t);
    cr_assert(strstr(t, "removed security group sg-0") && strstr(t, "removed key pair lab-labtest") &&
                  strstr(t, "nothing tagged Project=labtest is left"), "%s", t);
    free(t);
    nothing_left();
}

Test(cloud, an_ssh_that_never_answers_leaves_nothing_behind)
{
    if (!can_run("silent_ssh"))
        cr_skip_test("see the line above");
    start_fake("silent-ssh");
    setenv("WAIT_S", "6", 1);
    char *t;
    cr_assert_eq(step("access", &t), 0);
    free(t);
    cr_assert_eq(step("launch", &t), 0);
    free(t);
    cr_assert(port_open(ssh_port), "the silent machine does not listen");
    cr_assert_neq(step("wait", &t), 0);
    cr_assert(strstr(t, "did not answer within 6 s"), "%s", t);
    cr_assert(strstr(t, "removed instance i-0") && strstr(t, "removed security group sg-0") &&
                  strstr(t, "removed key pair lab-labtest") && strstr(t, "nothing tagged Project=labtest is left"),
              "%s", t);
    free(t);
    nothing_left();
    t = ask("describe-instances --query 'Reservations[].Instances[].State.Name'");
    cr_assert_str_eq(t, "terminated\n");
    free(t);
}

Test(cloud, check_without_credentials_says_so_in_one_line)
{
    if (access("/usr/bin/aws", X_OK) != 0) {
        printf("cloud/no_credentials: skipped: no /usr/bin/aws (Debian's awscli: make deps)\n");
        cr_skip_test("no awscli");
    }
    ssh_port = tnet_free_port();
    cloud_env(tnet_free_port()); /* nothing listens there: no request may be needed to say it */
    unsetenv("AWS_ACCESS_KEY_ID");
    unsetenv("AWS_SECRET_ACCESS_KEY");
    unsetenv("AWS_SESSION_TOKEN");
    const char *line = "cloud check: no AWS credentials: run aws configure (or set AWS_PROFILE, or "
                       "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)\n";
    char log[128];
    snprintf(log, sizeof log, "%s/check.log", aux);
    cr_assert_eq(shf("timeout 120 bash pipeline/cloud/cloud.sh check > %s 2>&1", log), 1);
    char *t = slurp(log);
    cr_assert_str_eq(t, line, "the script said: %s", t);
    free(t);
    /* through make: the same line, then make's own about the failed recipe (make exits 2 on any) */
    char *m;
    cr_assert_neq(step("check", &m), 0);
    cr_assert(!strncmp(m, line, strlen(line)), "%s", m);
    const char *rest = m + strlen(line);
    cr_assert(!strncmp(rest, "make: *** [Makefile:", 20) && strchr(rest, '\n') == rest + strlen(rest) - 1,
              "more than make's line after it: %s", m);
    free(m);
}

/* A machine without a serial console: the host key is the first login's
 * (after half of WAIT_S); status says the console has no progress line and
 * never logs in for it (the progress file there stays unread); demo is
 * refused while the schedule runs there. */
Test(cloud, without_a_console_status_never_logs_in_and_demo_waits)
{
    if (!can_run("no_console"))
        cr_skip_test("see the line above");
    start_fake("no-console");
    setenv("WAIT_S", "8", 1);
    char *t;
    cr_assert_eq(step("access", &t), 0);
    free(t);
    cr_assert_eq(step("launch", &t), 0);
    free(t);
    cr_assert_eq(step("wait", &t), 0);
    cr_assert(strstr(t, "host key from the first login"), "%s", t);
    free(t);
    /* what pipeline/cloud/cloudrun.sh writes there, as the far side would */
    cr_assert_eq(shf("mkdir -p %s/far/build/cloud-run && printf 'LAB-PROGRESS 2026-12-01T10:00:00Z start profile "
                     "tiny console none\\nLAB-PROGRESS 2026-12-01T10:00:02Z run 1 of 18  H3-dl round 1  elapsed 0:01  "
                     "left ~0:40\\n' > %s/far/build/cloud-run/progress.log", aux, aux), 0);
    cr_assert_eq(step("status", &t), 0);
    printf("---- make cloud-status\n%s", t);
    cr_assert(strstr(t, "no progress line on the serial console yet") && !strstr(t, "runs reported") &&
                  !strstr(t, "H3-dl round 1"), "%s", t);
    free(t);
    /* the schedule runs there (cloudrun.sh's pid: a live process, here a
     * child that waits; not this one, whose session teardown would end): no demo */
    pid_t busy = fork();
    cr_assert(busy >= 0);
    if (busy == 0) {
        sleep(120);
        _exit(0);
    }
    cr_assert_eq(shf("echo %d > %s/far/build/cloud-run/pid", (int)busy, aux), 0);
    int drc = step("demo", &t);
    kill(busy, SIGKILL);
    waitpid(busy, NULL, 0);
    shf("rm -f %s/far/build/cloud-run/pid", aux);
    cr_assert_neq(drc, 0);
    cr_assert(strstr(t, "cloud demo: the schedule runs there: the demo would disturb its runs"), "%s", t);
    free(t);
    setenv("FORCE", "1", 1);
    cr_assert_eq(step("delete", &t), 0);
    free(t);
    nothing_left();
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* COUNT=2 with the default OUT: two machines launched, waited for and set
 * up; start names a fresh study (CLOUD_DIR/study-<UTC>, CLOUD_DIR relative
 * here so that the study's records name no folder of this machine) and
 * spreads the rounds over them from here (make measure HOST=... --far-lab,
 * GNU parallel), status follows it, fetch checks and reports there, delete
 * removes both, cost prices both; the published results/ and provenance/
 * are as committed all along. */
Test(cloud, two_machines_split_the_schedule_by_rounds)
{
    if (!can_run("two_machines"))
        cr_skip_test("see the line above");
    if (shf("command -v parallel >/dev/null") != 0) {
        printf("cloud/two_machines: skipped: no GNU parallel (make deps)\n");
        cr_skip_test("no GNU parallel");
    }
    start_pg();
    char p[128];
    start_fake_n(NULL, 2);
    setenv("PGURL", pgurl, 1);
    char cdir[96];
    snprintf(cdir, sizeof cdir, "%s/cloud", outbase);
    setenv("CLOUD_DIR", cdir, 1);
    unsetenv("OUT"); /* the default: a fresh study, never the published one */
    setenv("SMOKE", "0", 1); /* the walk on one machine has the smoke run */
    snprintf(p, sizeof p, "%s/published-before", aux);
    cr_assert_eq(shf("git status --porcelain -- results provenance > %s && git diff --quiet HEAD -- results provenance",
                     p), 0, "the published study differs from HEAD before the test");
    double t0 = now_s();
    char *t;
    cr_assert_eq(step("access", &t), 0);
    free(t);
    setenv("COUNT", "2", 1);
    cr_assert_eq(step("launch", &t), 0);
    cr_assert(strstr(t, "m1: launched i-0") && strstr(t, "m2: launched i-0"), "%s", t);
    free(t);
    unsetenv("COUNT"); /* the later steps find both */
    cr_assert_eq(step("check", &t), 0); /* both are this checkout's: not "another lab machine" */
    free(t);
    cr_assert_eq(step("wait", &t), 0);
    cr_assert(strstr(t, "m1: ssh answers") && strstr(t, "m2: ssh answers"), "%s", t);
    free(t);
    snprintf(p, sizeof p, "%s/far", aux); /* both machines' home: the fake's sshds share 127.0.0.1 */
    int shared = share_build("two_machines", p, NULL);
    cr_assert_eq(step("setup", &t), 0);
    cr_assert_eq(count(t, "are the same as here"), 2, "%s", t);
    free(t);
    for (int k = 1; k <= 2 && shared; k++)
        cr_assert(setup_log_has(cdir, k == 1 ? "m1" : "m2", "Nothing to be done for 'progs'"),
                  "m%d's setup compiled something although the build was there (see %s/m%d/setup.log)", k, cdir, k);
    double s0 = now_s();
    cr_assert_eq(step("start", &t), 0);
    cr_assert(strstr(t, "runs from here on 2 machines into ") && strstr(t, "/cloud/study-"), "%s", t);
    free(t);
    snprintf(p, sizeof p, "%s/out", cdir);
    char *u = slurp(p);
    cr_assert(!strncmp(u, cdir, strlen(cdir)) && strstr(u, "/study-"), "the study's folder: %s", u);
    snprintf(outd, sizeof outd, "%.*s", (int)strcspn(u, "\n"), u); /* load() reads the study there */
    free(u);
    cr_assert(now_s() - s0 < 20, "start took %.1f s: not detached", now_s() - s0);
    int done = 0;
    for (int i = 0; i < 150 && !done; i++) {
        sleep(2);
        cr_assert_eq(step("status", &t), 0);
        done = strstr(t, "done exit 0") != NULL;
        cr_assert(!strstr(t, "done exit") || done, "%s", t);
        free(t);
    }
    cr_assert(done, "the split measurement did not end in 300 s");
    cr_assert_eq(step("fetch", &t), 0);
    cr_assert(strstr(t, "18 runs home, each file matching its run.json"), "%s", t);
    free(t);
    check_fetched();
    json_t *mr = load("results/results.json");
    cr_assert_eq(json_object_size(json_object_get(mr, "runs")), 18, "the fresh study measured every run");
    json_decref(mr);
    /* each round on one machine, both used, the joblog kept */
    snprintf(p, sizeof p, "%s/provenance/parallel.tsv", outd);
    t = slurp(p);
    cr_assert(strstr(t, "\tm1\t") && strstr(t, "\tm2\t") && strstr(t, "measure-round 1") &&
                  strstr(t, "measure-round 2") && !strstr(t, "127.0.0.1"), "%s", t);
    free(t);
    json_t *res = load("results/results.json"), *runs = json_object_get(res, "runs"), *run;
    const char *name, *m[3] = {NULL, NULL, NULL};
    json_object_foreach(runs, name, run)
    {
        int r = (int)json_integer_value(json_object_get(run, "round"));
        const char *mm = json_string_value(json_object_get(run, "machine"));
        cr_assert((r == 1 || r == 2) && mm, "%s", name);
        if (!m[r])
            m[r] = mm;
        cr_assert_str_eq(mm, m[r], "%s: round %d also on %s", name, r, m[r]);
    }
    cr_assert(m[1] && m[2] && strcmp(m[1], m[2]), "the rounds were not split over the two machines");
    json_decref(res);
    cr_assert_eq(step("delete", &t), 0);
    cr_assert_eq(count(t, "removed instance i-0"), 2, "%s", t);
    free(t);
    nothing_left();
    cr_assert_eq(step("cost", &t), 0);
    free(t);
    json_t *c = load("results/cost.json"), *r = json_object_get(c, "rental");
    cr_assert_eq(json_real_value(json_object_get(r, "price_per_hour_usd")), 0.0726, "two machines' price");
    json_decref(c);
    /* the published study: byte for byte as committed, nothing new in it */
    cr_assert_eq(shf("git status --porcelain -- results provenance | cmp -s - %s/published-before && "
                     "git diff --quiet HEAD -- results provenance", aux), 0,
                 "the published results/ or provenance/ changed: %s", "see git status");
    printf("cloud/two_machines: access to cost in %.0f s\n", now_s() - t0);
}

/* OUT=. (or the checkout's own folder by any name) is the published study:
 * every step refuses it before it asks AWS anything. */
Test(cloud, the_published_study_is_never_the_out)
{
    if (access("/usr/bin/aws", X_OK) != 0)
        cr_skip_test("no awscli");
    ssh_port = tnet_free_port();
    cloud_env(tnet_free_port()); /* nothing listens there */
    char *t, cwd[512];
    cr_assert_not_null(getcwd(cwd, sizeof cwd));
    const char *outs[] = {".", "./", cwd};
    const char *steps[] = {"start", "fetch", "cost"};
    for (int i = 0; i < 3; i++) {
        setenv("OUT", outs[i], 1);
        cr_assert_neq(step(steps[i], &t), 0);
        cr_assert(strstr(t, "is the published study (results/ and provenance/ as committed)") &&
                      strstr(t, "leave OUT unset"), "OUT=%s: %s", outs[i], t);
        free(t);
    }
}

/* make clean keeps build/cloud/ (here B=aux/b: the checkout's own build/
 * is not touched) and says so; make cloud-clean refuses while CLOUD_DIR
 * lists an instance, a key pair or a group, then removes the state but the
 * studies fetched. */
Test(cloud, clean_keeps_what_a_live_machine_needs)
{
    char b[128], *t;
    snprintf(b, sizeof b, "%s/b", aux);
    cr_assert_eq(shf("mkdir -p %s/cloud/m1 %s/cloud/study-20261204T010000Z/results %s/obj && touch %s/obj/x.o && "
                     "echo i-0123456789abcdef0 > %s/cloud/m1/instance_id && echo lab-labtest > %s/cloud/key_name && "
                     "echo sg-0123 > %s/cloud/group_id && echo eu-west-1 > %s/cloud/region",
                     b, b, b, b, b, b, b, b), 0);
    char log[160];
    snprintf(log, sizeof log, "%s/clean.log", aux);
    cr_assert_eq(shf("timeout 120 make -s clean B=%s > %s 2>&1", b, log), 0);
    t = slurp(log);
    printf("---- make clean\n%s", t);
    cr_assert(strstr(t, "cloud/ (a rented machine's key, its instance ids") && strstr(t, "make cloud-clean"), "%s", t);
    free(t);
    cr_assert(shf("test -f %s/cloud/m1/instance_id && test -f %s/cloud/key_name && test ! -e %s/obj", b, b, b) == 0,
              "make clean removed build/cloud/ or kept the rest");
    snprintf(log, sizeof log, "%s/cloud", b);
    setenv("CLOUD_DIR", log, 1);
    cr_assert_neq(step("clean", &t), 0);
    cr_assert(strstr(t, "refused") && strstr(t, "instance i-0123456789abcdef0") && strstr(t, "key pair lab-labtest") &&
                  strstr(t, "security group sg-0123") && strstr(t, "in eu-west-1") && strstr(t, "make cloud-delete first"),
              "%s", t);
    free(t);
    cr_assert_eq(shf("test -f %s/cloud/m1/instance_id", b), 0, "cloud-clean removed it anyway");
    /* what cloud-delete leaves: the machine's times, no id */
    cr_assert_eq(shf("cd %s/cloud && rm m1/instance_id key_name group_id && echo 2026-12-04T02:00:00Z > "
                     "m1/terminated_utc", b), 0);
    cr_assert_eq(step("clean", &t), 0);
    cr_assert(strstr(t, "removed the state in ") && strstr(t, "kept the studies ") &&
                  strstr(t, "study-20261204T010000Z"), "%s", t);
    free(t);
    cr_assert_eq(shf("test -d %s/cloud/study-20261204T010000Z/results && test ! -e %s/cloud/m1 && "
                     "test ! -e %s/cloud/region", b, b, b), 0);
}

/* cloud-cost from the recorded times alone (no AWS call): m1 3 h, m2 1 h,
 * 16 GB each, 0.0363 USD/h.  By hand: m1 3 x 0.0363 = 0.1089, IPv4
 * 3 x 0.005 = 0.0150, disk 16 x 0.08 x 3 / 730 = 0.005260, total 0.129160;
 * m2 0.0363, 0.0050, 0.001753, total 0.043053; both 4 h: 0.1452 + 0.0200 +
 * 0.007014 = 0.172214 USD. */
Test(cloud, cost_adds_the_address_and_the_disk_per_machine)
{
    if (access("/usr/bin/aws", X_OK) != 0)
        cr_skip_test("no awscli");
    ssh_port = tnet_free_port();
    cloud_env(tnet_free_port()); /* nothing listens there: cost asks AWS nothing */
    cr_assert_eq(shf("cd %s && mkdir -p cloud/m1 cloud/m2 && echo 2026-12-01T10:00:00Z > cloud/m1/launch_utc && "
                     "echo 2026-12-01T13:00:00Z > cloud/m1/terminated_utc && echo 16 > cloud/m1/disk_gb && "
                     "echo 2026-12-01T10:00:00Z > cloud/m2/launch_utc && echo 2026-12-01T11:00:00Z > "
                     "cloud/m2/terminated_utc", aux), 0);
    char *t;
    cr_assert_eq(step("cost", &t), 0);
    cr_assert(strstr(t, "m1: 3.0000 h (2026-12-01T10:00:00Z to 2026-12-01T13:00:00Z): machine 0.1089 USD "
                        "(0.0363 USD/h), public IPv4 0.0150 USD (0.005 USD/h), disk 0.0053 USD (16 GB gp3 at 0.08 "
                        "USD/GB-month): 0.1292 USD"), "%s", t);
    cr_assert(strstr(t, "m2: 1.0000 h (2026-12-01T10:00:00Z to 2026-12-01T11:00:00Z): machine 0.0363 USD "
                        "(0.0363 USD/h), public IPv4 0.0050 USD (0.005 USD/h), disk 0.0018 USD"), "%s", t);
    cr_assert(strstr(t, "all 2 machine(s): 4.0000 h: machine 0.1452 + public IPv4 0.0200 + disk 0.0070 = 0.1722 USD"),
              "%s", t);
    free(t);
    char p[128];
    snprintf(p, sizeof p, "%s/cloud/cost.tsv", aux);
    t = slurp(p);
    cr_assert(strstr(t, "m2\t2026-12-01T10:00:00Z\t2026-12-01T11:00:00Z\t1.0000\t0.0363\t0.0050\t16\t0.0018\t0.0431\n"),
              "%s", t);
    free(t);
    /* a bigger disk, another price for the address */
    setenv("DISK_GB", "100", 1); /* m2 has no disk_gb recorded: DISK_GB */
    setenv("IPV4_PER_HOUR", "0.01", 1);
    cr_assert_eq(step("cost", &t), 0);
    /* m2: 100 x 0.08 x 1 / 730 = 0.010959; total 0.0363 + 0.01 + 0.010959 = 0.057259 */
    cr_assert(strstr(t, "m2: 1.0000 h") && strstr(t, "public IPv4 0.0100 USD (0.01 USD/h), disk 0.0110 USD (100 GB gp3 "
                                                     "at 0.08 USD/GB-month): 0.0573 USD"), "%s", t);
    free(t);
    unsetenv("IPV4_PER_HOUR");
}

/* The fake's first zone is full (InsufficientInstanceCapacity): launch
 * tries the region's other zones and the machine starts in fake-1b;
 * nothing is torn down. */
Test(cloud, a_full_zone_launches_in_another)
{
    if (!can_run("full_zone"))
        cr_skip_test("see the line above");
    start_fake("no-capacity");
    char *t;
    cr_assert_eq(step("access", &t), 0);
    free(t);
    cr_assert_eq(step("launch", &t), 0);
    cr_assert(strstr(t, "InsufficientInstanceCapacity") &&
                  strstr(t, "m1: InsufficientInstanceCapacity in fake-1a: trying fake-1b") && /* AWS's message names it */
                  strstr(t, "m1: launched i-0") && !strstr(t, "removing") && !strstr(t, "trying fake-1a") &&
                  !strstr(t, "trying fake-1c"), "%s", t);
    free(t);
    t = ask("describe-instances --filters Name=tag:Project,Values=labtest --query "
            "'Reservations[].Instances[].[State.Name,Placement.AvailabilityZone]'");
    cr_assert(strstr(t, "fake-1b") && !strstr(t, "fake-1a"), "%s", t);
    free(t);
    setenv("FORCE", "1", 1);
    cr_assert_eq(step("delete", &t), 0);
    free(t);
    nothing_left();
}

/* Ctrl-C while RunInstances is on its way (the fake makes the instance,
 * then answers 5 s later): the launch finds what it made by its tag and
 * terminates it; the key pair and group stay for delete. */
Test(cloud, an_interrupted_launch_removes_what_it_made)
{
    if (!can_run("interrupted_launch"))
        cr_skip_test("see the line above");
    start_fake("slow-run");
    char *t;
    cr_assert_eq(step("access", &t), 0);
    free(t);
    char log[128];
    snprintf(log, sizeof log, "%s/launch.log", aux);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) { /* a process group of its own, as a terminal's job: Ctrl-C goes to all of it */
        setpgid(0, 0);
        signal(SIGINT, SIG_DFL); /* as at a terminal, whatever started the tests (a job in the background of a shell
                                    without job control ignores SIGINT, and bash cannot trap a signal ignored at entry) */
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 1);
        dup2(fd, 2);
        execl("/bin/bash", "bash", "pipeline/cloud/cloud.sh", "launch", (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid);
    /* until the fake has made the instance (it is then asleep for 5 s) */
    char made[128];
    snprintf(made, sizeof made, "%s/actions", aux);
    for (int i = 0; i < 100 && shf("grep -q RunInstances %s", made) != 0; i++)
        usleep(100000);
    usleep(500000);
    cr_assert_eq(kill(-pid, SIGINT), 0);
    int st = 0, gone = reap_or_kill(pid, 600, &st);
    t = slurp(log);
    printf("---- cloud.sh launch, interrupted\n%s", t);
    cr_assert(gone, "the interrupted launch did not end in 60 s");
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 130, "exit status %d", st);
    cr_assert(strstr(t, "cloud launch: interrupted: removing what the launch of m1 made (tag Launch=") &&
                  strstr(t, "removed instance i-0"), "%s", t);
    free(t);
    char p[128];
    snprintf(p, sizeof p, "%s/cloud/m1", aux);
    cr_assert_neq(access(p, F_OK), 0, "%s is still there", p);
    t = ask("describe-instances --query 'Reservations[].Instances[].State.Name'");
    cr_assert_str_eq(t, "terminated\n", "%s", t);
    free(t);
    cr_assert_eq(step("delete", &t), 0);
    free(t);
    nothing_left();
}

/* AWS throttles DescribeInstanceTypes six times (RequestLimitExceeded,
 * status 503): the aws client retries by its own settings (Debian's: 3
 * attempts) and gives up; cloud.sh waits 2 s, says so and asks again (then
 * 4 s), and check goes on.  The fake's log holds each throttled call. */
Test(cloud, a_throttled_call_is_made_again)
{
    if (!can_run("throttle"))
        cr_skip_test("see the line above");
    const char *extra[] = {"--throttle", "DescribeInstanceTypes:6", NULL};
    start_fake_x(NULL, 1, extra);
    char *t;
    cr_assert_eq(step("check", &t), 0);
    cr_assert(strstr(t, "cloud check: aws ec2 describe-instance-types: RequestLimitExceeded (AWS throttles this "
                        "account's calls): trying again in 2 s (2 of 5)") && strstr(t, "cloud check: ok"), "%s", t);
    free(t);
    char p[128];
    snprintf(p, sizeof p, "%s/actions", aux);
    t = slurp(p);
    int n = count(t, "DescribeInstanceTypes RequestLimitExceeded\n");
    cr_assert_eq(n, 6, "%d throttled calls logged: %s", n, t);
    free(t);
}

/* The user-data's poweroff (`shutdown -h +60*MAX_HOURS`, a fake minute of
 * 0.15 s: 9 s after it runs) and the terminate behaviour set at launch:
 * the machine goes, its sshd with it; status names its state and EC2's
 * reason (Client.InstanceInitiatedShutdown) and what it means. */
Test(cloud, a_machine_past_max_hours_powers_off_and_status_says_why)
{
    if (!can_run("poweroff"))
        cr_skip_test("see the line above");
    const char *extra[] = {"--minute-s", "0.15", NULL};
    start_fake_x(NULL, 1, extra);
    setenv("MAX_HOURS", "1", 1);
    char *t;
    cr_assert_eq(step("access", &t), 0);
    free(t);
    cr_assert_eq(step("launch", &t), 0);
    cr_assert(strstr(t, "it powers itself off after 1 h whatever happens"), "%s", t);
    free(t);
    cr_assert_eq(step("wait", &t), 0);
    free(t);
    double t0 = now_s();
    int off = 0;
    while (!off && now_s() - t0 < 30) {
        sleep(1);
        cr_assert_eq(step("status", &t), 0);
        off = strstr(t, "is terminated: Client.InstanceInitiatedShutdown: Instance initiated shutdown: the machine "
                        "switched itself off (the poweroff set MAX_HOURS after its launch") != NULL;
        if (off)
            printf("---- make cloud-status\n%s", t);
        free(t);
    }
    cr_assert(off, "the machine did not power itself off within 30 s of its wait");
    cr_assert(!port_open(ssh_port), "its sshd still listens");
    setenv("FORCE", "1", 1);
    cr_assert_eq(step("delete", &t), 0);
    free(t);
    nothing_left();
}

/* A user with sudo standing for Debian's login user (admin): not root. */
static int made_user;
static void drop_user(void)
{
    if (!made_user)
        return;
    shf("pkill -KILL -u labadmin 2>/dev/null; sleep 0.5; userdel -r labadmin > /dev/null 2>&1; "
        "rm -f /etc/sudoers.d/lab-test-labadmin");
    made_user = 0;
}

/* make cloud-study on the tiny profile against an endpoint that behaves
 * as a real one can: each machine pending for 1 to 3 s, its console empty
 * for 2 to 4 s more, its id unknown for 4 s after its launch, RunInstances
 * throttled once (the aws client retries it) and the first zone full; the
 * login a user with sudo, not root (so nice -10 needs limits.d or, where
 * that does not take, cap_sys_nice on build/bin/run).  Ctrl-C while it
 * follows the schedule stops the following only; the second make
 * cloud-study goes on, fetches, deletes and prices.  Every run.json tells
 * the tester's priority as it was: -10, as asked. */
Test(cloud, study_walk_through_a_full_zone_a_throttle_a_late_console_and_a_non_root_login)
{
    if (!can_run("study_walk"))
        cr_skip_test("see the line above");
    if (shf("command -v sudo useradd setcap >/dev/null") != 0) {
        printf("cloud/study_walk: skipped: no sudo, useradd or setcap (make deps: sudo, libcap2-bin)\n");
        cr_skip_test("no sudo");
    }
    if (shf("id labadmin >/dev/null 2>&1") == 0) {
        printf("cloud/study_walk: skipped: a user labadmin exists already (not this test's to remove)\n");
        cr_skip_test("labadmin exists");
    }
    cr_assert_eq(shf("useradd -m -s /bin/bash labadmin && usermod -p '*' labadmin && "
                     "echo 'labadmin ALL=(ALL) NOPASSWD: ALL' > /etc/sudoers.d/lab-test-labadmin && "
                     "chmod 0440 /etc/sudoers.d/lab-test-labadmin && chmod 0755 %s", aux), 0);
    made_user = 1;
    int shared = share_build("study_walk", "/home/labadmin/lab", "labadmin"); /* REMOTE_DIR=lab, in its home */
    start_pg();
    char p[160];
    const char *extra[] = {"--pending", "1-3", "--console-late", "2-4", "--notfound-s", "4",
                           "--throttle", "RunInstances:1", NULL};
    start_fake_x("no-capacity", 1, extra);
    setenv("PGURL", pgurl, 1);
    setenv("SSH_USER", "labadmin", 1);
    setenv("REMOTE_DIR", "lab", 1); /* in its home */
    setenv("STUDY_EVERY_S", "2", 1);
    double t0 = now_s();
    /* the first: interrupted while it follows the schedule */
    char log1[128];
    snprintf(log1, sizeof log1, "%s/study1.log", aux);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        setpgid(0, 0);
        signal(SIGINT, SIG_DFL); /* as at a terminal, whatever started the tests (a job in the background of a shell
                                    without job control ignores SIGINT, and bash cannot trap a signal ignored at entry) */
        int fd = open(log1, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 1);
        dup2(fd, 2);
        execlp("timeout", "timeout", "600", "make", "-s", "cloud-study", (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid);
    int following = 0, st = 0;
    while (!following && now_s() - t0 < 600) {
        if (waitpid(pid, &st, WNOHANG) == pid) {
            pid = -1;
            break;
        }
        sleep(1);
        following = shf("grep -q 'cloud study: [0-9:]*Z: run [0-9]* of 18 ' %s", log1) == 0;
    }
    char *t1 = slurp(log1);
    printf("---- make cloud-study (the first, to be interrupted)\n%s", t1);
    cr_assert(pid > 0 && following, "the study ended or did not follow the schedule: %s", t1);
    free(t1);
    kill(-pid, SIGINT);
    int gone = reap_or_kill(pid, 300, &st);
    t1 = slurp(log1);
    printf("---- after Ctrl-C\n%s", t1);
    cr_assert(gone && (WIFSIGNALED(st) || (WIFEXITED(st) && WEXITSTATUS(st) != 0)), "the interrupted study: status %d",
              st); /* make ends itself by the signal it got, and timeout passes that on */
    cr_assert(strstr(t1, "InsufficientInstanceCapacity in fake-1a: trying fake-1b") &&
                  strstr(t1, "host key from the console") &&
                  (strstr(t1, "nice -10 allowed to labadmin there (limits.d)") ||
                   strstr(t1, "nice -10 allowed to labadmin there (cap_sys_nice)")) &&
                  strstr(t1, "smoke there: 18 runs, each complete") &&
                  strstr(t1, "stopped following; the measurement goes on there"), "%s", t1);
    free(t1);
    snprintf(p, sizeof p, "%s/cloud", aux);
    cr_assert(!shared || setup_log_has(p, "m1", "Nothing to be done for 'progs'"),
              "setup compiled something although the build was there (see %s/m1/setup.log)", p);
    /* the second goes on where the first was */
    char *t;
    cr_assert_eq(step("study", &t), 0);
    cr_assert(strstr(t, "the schedule started ") && strstr(t, "following it") && !strstr(t, "cloud launch:") &&
                  !strstr(t, "cloud smoke:") && strstr(t, "the schedule is done there (exit 0)") &&
                  strstr(t, "18 runs home, each file matching its run.json") &&
                  strstr(t, "nothing tagged Project=labtest is left") && strstr(t, "all 1 machine(s): ") &&
                  strstr(t, "cloud study: done: the study is in "), "%s", t);
    free(t);
    check_fetched();
    /* the tester's priority, as it was, in every run */
    cr_assert_eq(shf("n=0; for f in %s/results/raw/*/run.json; do [ \"$(jq -r '\"\\(.tester_nice) "
                     "\\(.tester_nice_asked)\"' $f)\" = '-10 -10' ] || exit 1; n=$((n+1)); done; [ $n = 18 ]", outd), 0,
                 "a run.json's tester_nice is not -10 as asked");
    snprintf(p, sizeof p, "%s/actions", aux);
    t = slurp(p);
    cr_assert(strstr(t, "RunInstances RequestLimitExceeded\n") && strstr(t, "RunInstances InsufficientInstanceCapacity\n") &&
                  strstr(t, "DescribeInstances InvalidInstanceID.NotFound\n"), "%s", t);
    free(t);
    nothing_left();
    drop_user();
    printf("cloud/study_walk: two make cloud-study in %.0f s\n", now_s() - t0);
}
