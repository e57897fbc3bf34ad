/* fakeec2vm: see fakeec2vm.h for the contract. */
#include "fakeec2vm.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"
#include "util.h"

static int keygen_at(const char *path, const char *type, char *err, size_t errlen)
{
    unlink(path);
    char pub[600];
    snprintf(pub, sizeof pub, "%s.pub", path);
    unlink(pub);
    int rsa = !strcmp(type, "rsa");
    char *argv[] = {"ssh-keygen", "-q", "-t", (char *)type, "-N", "", "-C", "fakeec2", "-f", (char *)path,
                    rsa ? "-m" : NULL, "PEM", NULL};
    char *out = NULL;
    int rc = proc_capture(argv, &out, 1);
    if (rc != 0)
        ut_seterr(err, errlen, "ssh-keygen -t %s -f %s: exit %d: %s", type, path, rc, out ? out : "");
    free(out);
    return rc == 0 ? 0 : -1;
}

int fe_keygen(const char *dir, const char *name, const char *type, char **priv, char pubpath[600], char fp[128],
              char *err, size_t errlen)
{
    char path[560];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (ut_mkdir_p(dir, err, errlen) != 0 || keygen_at(path, type, err, errlen) != 0)
        return -1;
    size_t n;
    if (ut_read_file(path, priv, &n, err, errlen) != 0)
        return -1;
    snprintf(pubpath, 600, "%s.pub", path);
    /* "256 SHA256:abc... fakeec2 (ED25519)": the second field */
    char *argv[] = {"ssh-keygen", "-l", "-E", "sha256", "-f", pubpath, NULL}, *out = NULL;
    int rc = proc_capture(argv, &out, 0);
    fp[0] = 0;
    if (rc == 0 && out)
        sscanf(out, "%*s %127s", fp);
    free(out);
    if (!fp[0]) {
        ut_seterr(err, errlen, "ssh-keygen -l -f %s gave no fingerprint", pubpath);
        return -1;
    }
    return 0;
}

/* What cloud-init writes to the serial console at boot, the host keys included. */
static int write_console(const fe_vm *vm, const char *hostpub, char *err, size_t errlen)
{
    char *key = NULL, stamp[32];
    size_t n;
    if (ut_read_file(hostpub, &key, &n, err, errlen) != 0)
        return -1;
    key[strcspn(key, "\r\n")] = 0;
    ut_utc_iso(stamp);
    FILE *f = fopen(vm->console, "w");
    if (!f) {
        ut_seterr(err, errlen, "%s: %s", vm->console, strerror(errno));
        free(key);
        return -1;
    }
    fprintf(f,
            "[    0.000000] Booting Linux on physical CPU 0x0000000000 (a fake: tests/fake/fakeec2.c)\r\n"
            "[    1.234567] Run /sbin/init as init process\r\n"
            "Cloud-init v. 22.4.2 running 'modules:config' at %s\r\n"
            "#############################################################\r\n"
            "-----BEGIN SSH HOST KEY FINGERPRINTS-----\r\n"
            "256 SHA256:(see the key) root@fake (ED25519)\r\n"
            "-----END SSH HOST KEY FINGERPRINTS-----\r\n"
            "#############################################################\r\n"
            "-----BEGIN SSH HOST KEY KEYS-----\r\n"
            "%s\r\n"
            "-----END SSH HOST KEY KEYS-----\r\n"
            "Cloud-init v. 22.4.2 finished at %s. Up 9.87 seconds\r\n",
            stamp, key, stamp);
    free(key);
    if (fclose(f) != 0 || chmod(vm->console, 0666) != 0) { /* a login of any user writes its progress there */
        ut_seterr(err, errlen, "%s: %s", vm->console, strerror(errno));
        return -1;
    }
    return 0;
}

static int copy_file(const char *from, const char *to, char *err, size_t errlen)
{
    char *b = NULL;
    size_t n;
    int rc = ut_read_file(from, &b, &n, err, errlen) == 0 && ut_write_file(to, b, n, err, errlen) == 0 ? 0 : -1;
    free(b);
    return rc;
}

/* sshd -D in the foreground of a child, listening once its log says so. */
static int start_sshd(fe_vm *vm, int port, char *err, size_t errlen)
{
    char cfg[600], log[600], text[4096];
    snprintf(cfg, sizeof cfg, "%s/sshd_config", vm->dir);
    snprintf(log, sizeof log, "%s/sshd.log", vm->dir);
    snprintf(text, sizeof text,
             "ListenAddress 127.0.0.1\nPort %d\nHostKey %s/hostkey\nPidFile %s/sshd.pid\n"
             "AuthorizedKeysFile %s/authorized_keys\nPermitRootLogin prohibit-password\n"
             "PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n"
             "SetEnv LAB_CONSOLE=%s\n",
             port, vm->dir, vm->dir, vm->dir, vm->console);
    if (ut_write_file(cfg, text, strlen(text), err, errlen) != 0 || ut_mkdir_p("/run/sshd", err, errlen) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        ut_seterr(err, errlen, "fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        closefrom(3); /* not the fake's HTTP socket */
        signal(SIGTERM, SIG_DFL);
        execl("/usr/sbin/sshd", "/usr/sbin/sshd", "-D", "-e", "-f", cfg, (char *)NULL);
        _exit(127);
    }
    vm->sshd = pid;
    char want[96];
    snprintf(want, sizeof want, "Server listening on 127.0.0.1 port %d", port);
    for (int i = 0; i < 200; i++) { /* up to 10 s */
        char *t = NULL;
        size_t n;
        char e2[UT_ERRLEN];
        int up = ut_read_file(log, &t, &n, e2, sizeof e2) == 0 && strstr(t, want);
        free(t);
        if (up)
            return 0;
        if (waitpid(pid, NULL, WNOHANG) == pid) {
            vm->sshd = 0;
            ut_seterr(err, errlen, "sshd on port %d exited at once (see %s)", port, log);
            return -1;
        }
        struct timespec ts = {0, 50000000};
        nanosleep(&ts, NULL);
    }
    ut_seterr(err, errlen, "sshd on port %d did not say it listens (see %s)", port, log);
    fe_vm_halt(vm);
    return -1;
}

/* A port that completes the TCP handshake (the kernel does) and never says a word. */
static int start_silent(fe_vm *vm, int port, char *err, size_t errlen)
{
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) != 0 || listen(s, 64) != 0) {
        ut_seterr(err, errlen, "the silent port %d: %s", port, strerror(errno));
        if (s >= 0)
            close(s);
        return -1;
    }
    vm->silent_fd = s;
    return 0;
}

int fe_vm_boot(fe_vm *vm, const char *dir, const char *pubkey, int port, int mode, char *err, size_t errlen)
{
    vm->sshd = 0;
    vm->silent_fd = -1;
    snprintf(vm->dir, sizeof vm->dir, "%s", dir);
    snprintf(vm->console, sizeof vm->console, "%s/console", dir);
    char hk[600], hkpub[620], ak[600];
    snprintf(hk, sizeof hk, "%s/hostkey", dir);
    snprintf(hkpub, sizeof hkpub, "%s.pub", hk);
    snprintf(ak, sizeof ak, "%s/authorized_keys", dir);
    if (ut_mkdir_p(dir, err, errlen) != 0 || keygen_at(hk, "ed25519", err, errlen) != 0 ||
        copy_file(pubkey, ak, err, errlen) != 0 || write_console(vm, hkpub, err, errlen) != 0)
        return -1;
    if (mode == FE_VM_SSHD)
        return start_sshd(vm, port, err, errlen);
    if (mode == FE_VM_SILENT)
        return start_silent(vm, port, err, errlen);
    return 0;
}

void fe_vm_halt(fe_vm *vm)
{
    if (vm->sshd > 0) {
        kill(vm->sshd, SIGTERM);
        waitpid(vm->sshd, NULL, 0);
        vm->sshd = 0;
    }
    if (vm->silent_fd >= 0) {
        close(vm->silent_fd);
        vm->silent_fd = -1;
    }
}
