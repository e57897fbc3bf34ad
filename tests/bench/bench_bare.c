/* bench_bare: the floor under S for `make bench`.  A bare HTTP/1.1
 * keep-alive responder on 127.0.0.1: one thread, epoll, no store, no
 * model; each POST it reads (a head up to its empty line, then
 * Content-Length bytes of body) gets at once the answer the lab's tester
 * takes for a live score, {"id":J,"score":0.5,"kind":"live"}, J read from
 * the request's body ("id":J), with a Content-Length and no other work.
 * The tester against it on one core measures what the machine's loopback
 * and the tester allow; S (the lab's service and store in its place)
 * is then a share of that (tests/bench/bench.sh).
 *
 *   bench_bare PORT SECONDS   serves PORT for SECONDS, then prints the
 *                             answers it sent and exits 0
 *
 * Exit 2 on a bad argument, 1 when it cannot listen.  Loopback only. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAXCONN 1024
#define BUF 65536

typedef struct {
    int fd;
    char in[BUF];
    size_t n;
} conn;

static conn *conns[MAXCONN];

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The length of the complete request at the start of c->in, or 0 when it
 * is not complete yet; -1 when it is malformed. */
static long request_len(const conn *c, long *id)
{
    const char *end = memmem(c->in, c->n, "\r\n\r\n", 4);
    if (!end)
        return c->n >= BUF ? -1 : 0;
    size_t head = (size_t)(end - c->in) + 4;
    long body = 0;
    for (const char *p = c->in; p < end; p++)
        if ((*p == 'C' || *p == 'c') && !strncasecmp(p, "Content-Length:", 15)) {
            body = strtol(p + 15, NULL, 10);
            break;
        }
    if (body < 0 || head + (size_t)body > BUF)
        return -1;
    if (c->n < head + (size_t)body)
        return 0;
    const char *q = memmem(c->in + head, (size_t)body, "\"id\":", 5);
    *id = q ? strtol(q + 5, NULL, 10) : 0;
    return (long)(head + (size_t)body);
}

static void drop(int ep, conn *c)
{
    epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    conns[c->fd] = NULL;
    free(c);
}

int main(int argc, char **argv)
{
    if (argc != 3 || atoi(argv[1]) <= 0 || atof(argv[2]) <= 0) {
        fprintf(stderr, "usage: bench_bare PORT SECONDS\n");
        return 2;
    }
    int ls = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0), one = 1;
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[1]))};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(ls, (struct sockaddr *)&a, sizeof a) != 0 || listen(ls, 512) != 0) {
        fprintf(stderr, "bench_bare: cannot listen on 127.0.0.1:%s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    int ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = ls};
    epoll_ctl(ep, EPOLL_CTL_ADD, ls, &ev);
    double stop = now_s() + atof(argv[2]);
    long answers = 0;
    struct epoll_event evs[64];
    while (now_s() < stop) {
        int k = epoll_wait(ep, evs, 64, 100);
        for (int i = 0; i < k; i++) {
            int fd = evs[i].data.fd;
            if (fd == ls) {
                int c;
                while ((c = accept4(ls, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
                    if (c >= MAXCONN) {
                        close(c);
                        continue;
                    }
                    setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    conns[c] = calloc(1, sizeof(conn));
                    if (!conns[c]) {
                        close(c);
                        continue;
                    }
                    conns[c]->fd = c;
                    struct epoll_event ce = {.events = EPOLLIN, .data.fd = c};
                    epoll_ctl(ep, EPOLL_CTL_ADD, c, &ce);
                }
                continue;
            }
            conn *c = conns[fd];
            if (!c)
                continue;
            ssize_t r = read(fd, c->in + c->n, BUF - c->n);
            if (r <= 0) {
                if (r == 0 || (errno != EAGAIN && errno != EINTR))
                    drop(ep, c);
                continue;
            }
            c->n += (size_t)r;
            long len, id;
            while ((len = request_len(c, &id)) > 0) {
                char body[96], out[256];
                int bl = snprintf(body, sizeof body, "{\"id\":%ld,\"score\":0.5,\"kind\":\"live\"}", id);
                int ol = snprintf(out, sizeof out,
                                  "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
                                  bl, body);
                if (write(fd, out, (size_t)ol) != ol)
                    break; /* the tester reads every answer; a short write means it left */
                answers++;
                memmove(c->in, c->in + len, c->n - (size_t)len);
                c->n -= (size_t)len;
            }
            if (len < 0)
                drop(ep, c);
        }
    }
    printf("bench_bare: %ld answers\n", answers);
    return 0;
}
