/* fakeec2vm: the "machines" behind tests/fake/fakeec2.c, on this machine only.
 *
 * A fake instance is a throwaway sshd on 127.0.0.1 (as the HOST tests use)
 * in a folder of its own: its host key made with ssh-keygen, the key pair's
 * public key as its only authorized key, and a "serial console": a file
 * that starts with what cloud-init writes at boot (the host keys between
 * "-----BEGIN SSH HOST KEY KEYS-----" and "-----END ...") and that the
 * sessions it serves are told to write to (sshd's SetEnv LAB_CONSOLE=...;
 * pipeline/cloud/cloudrun.sh writes its LAB-PROGRESS lines there).
 *
 * Three ways to boot: FE_VM_SSHD (sshd answers), FE_VM_SILENT (the port
 * listens but nothing ever answers: the TCP handshake completes, the ssh
 * banner never comes) and FE_VM_CLOSED (nothing listens: the security group
 * does not let port 22 in from 127.0.0.1).
 *
 * fe_keygen makes a key pair with ssh-keygen: the private key's text and
 * the public key's path come back (the caller frees the text).
 *
 * Ownership: fe_vm_boot fills a fe_vm the caller keeps; fe_vm_halt stops
 * what it started (sshd SIGTERMed and waited for, the silent socket
 * closed) and may be called twice.  Errors: 0 or -1 with a message in err.
 */
#ifndef TESTS_FAKEEC2VM_H
#define TESTS_FAKEEC2VM_H

#include <stddef.h>
#include <sys/types.h>

enum { FE_VM_SSHD, FE_VM_SILENT, FE_VM_CLOSED };

typedef struct {
    char dir[512];     /* its folder */
    char console[600]; /* its console file */
    pid_t sshd;        /* 0 when none runs */
    int silent_fd;     /* -1 when none */
} fe_vm;

int fe_keygen(const char *dir, const char *name, const char *type, char **priv, char pubpath[600], char fp[128],
              char *err, size_t errlen);
int fe_vm_boot(fe_vm *vm, const char *dir, const char *pubkey, int port, int mode, char *err, size_t errlen);
void fe_vm_halt(fe_vm *vm);

#endif
