/* tnet: loopback helpers of the tests that start servers (measure over ssh,
 * several hosts, the fake cloud).
 *
 *   tnet_free_port()  a TCP port of 127.0.0.1 free a moment ago (another
 *                     program may take it before the caller binds it)
 *   tnet_start_sshd(dir, tag, &port, why, wl)  an sshd on 127.0.0.1 with
 *                     the host key DIR/hostkey and DIR/authorized_keys, its
 *                     config, log and pid in DIR/sshd<tag>_config, .log and
 *                     .pid; up once its log says it listens.  A port taken
 *                     meanwhile makes sshd exit: another port, three tries.
 *                     Its pid, or -1 with its last log in why (may be NULL).
 * The caller stops it (kill, waitpid).
 */
#ifndef TESTS_TNET_H
#define TESTS_TNET_H

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

static inline int tnet_free_port(void)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    cr_assert_eq(bind(s, (struct sockaddr *)&a, sizeof a), 0);
    cr_assert_eq(getsockname(s, (struct sockaddr *)&a, &len), 0);
    close(s);
    return ntohs(a.sin_port);
}

static inline pid_t tnet_start_sshd(const char *dir, const char *tag, int *port_out, char *why, size_t whylen)
{
    char cfg[256], lp[256], text[2048], err[UT_ERRLEN];
    snprintf(cfg, sizeof cfg, "%s/sshd%s_config", dir, tag);
    snprintf(lp, sizeof lp, "%s/sshd%s.log", dir, tag);
    for (int attempt = 1; attempt <= 3; attempt++) {
        int port = tnet_free_port();
        snprintf(text, sizeof text,
                 "ListenAddress 127.0.0.1\nPort %d\nHostKey %s/hostkey\nPidFile %s/sshd%s.pid\n"
                 "AuthorizedKeysFile %s/authorized_keys\nPermitRootLogin prohibit-password\n"
                 "PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n",
                 port, dir, dir, tag, dir);
        cr_assert_eq(ut_write_file(cfg, text, strlen(text), err, sizeof err), 0, "%s", err);
        pid_t pid = fork();
        cr_assert(pid >= 0);
        if (pid == 0) {
            int fd = open(lp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            dup2(fd, 1);
            dup2(fd, 2);
            execl("/usr/sbin/sshd", "/usr/sbin/sshd", "-D", "-e", "-f", cfg, (char *)NULL);
            _exit(127);
        }
        char want[96];
        snprintf(want, sizeof want, "Server listening on 127.0.0.1 port %d", port);
        for (;;) {
            char *log = NULL;
            size_t n;
            int up = ut_read_file(lp, &log, &n, err, sizeof err) == 0 && strstr(log, want);
            if (why)
                snprintf(why, whylen, "%s", log ? log : err);
            free(log);
            if (up) {
                *port_out = port;
                return pid;
            }
            if (waitpid(pid, NULL, WNOHANG) == pid)
                break; /* it gave up (the port, most likely): another port */
            struct timespec ts = {0, 50000000};
            nanosleep(&ts, NULL);
        }
    }
    return -1;
}

#endif
