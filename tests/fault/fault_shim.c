/* Fault injection for the bitplane program's outputs (issue #14): an LD_PRELOAD library that
 * counts the calls that put bytes or names on disk (write, pwrite, pwrite64, writev, pwritev,
 * fsync, fdatasync, rename) and fails one of them.
 *
 *   BITPLANE_FAULT_AT=N        the Nth counted call fails (1-based); unset or 0: none fails
 *   BITPLANE_FAULT_ERRNO=E     the errno it fails with (a number; default ENOSPC)
 *   BITPLANE_FAULT_COUNT=PATH  at exit, the number of counted calls is written to PATH
 *
 * Calls on descriptors 0, 1 and 2 are neither counted nor failed: the program's messages on
 * stderr must get through, and stdout is checked by its own tests (/dev/full). Only calls made
 * through the dynamic symbols are seen (glibc's own internal writes, e.g. fwrite's, are not).
 * tests/fault/fault_test.py drives it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static long fail_at = 0;
static int fail_errno = ENOSPC;
static long calls = 0;
static const char* count_path = NULL;

__attribute__((constructor)) static void fault_init(void) {
    const char* at = getenv("BITPLANE_FAULT_AT");
    const char* e = getenv("BITPLANE_FAULT_ERRNO");
    if (at != NULL) fail_at = strtol(at, NULL, 10);
    if (e != NULL) fail_errno = (int)strtol(e, NULL, 10);
    count_path = getenv("BITPLANE_FAULT_COUNT");
}

__attribute__((destructor)) static void fault_report(void) {
    if (count_path == NULL) return;
    FILE* f = fopen(count_path, "w");
    if (f == NULL) return;
    fprintf(f, "%ld\n", __atomic_load_n(&calls, __ATOMIC_SEQ_CST));
    fclose(f);
}

/* Counts a call; 1 when it is the one to fail (errno set). */
static int fault_hit(void) {
    const long n = __atomic_add_fetch(&calls, 1, __ATOMIC_SEQ_CST);
    if (fail_at > 0 && n == fail_at) {
        errno = fail_errno;
        return 1;
    }
    return 0;
}

/* The next definition of `name` (libc's), looked up on first use. */
#define REAL(name) \
    static __typeof__(name)* real_##name = NULL; \
    if (real_##name == NULL) real_##name = (__typeof__(name)*)dlsym(RTLD_NEXT, #name)

ssize_t write(int fd, const void* buffer, size_t size) {
    REAL(write);
    if (fd > 2 && fault_hit()) return -1;
    return real_write(fd, buffer, size);
}

ssize_t pwrite(int fd, const void* buffer, size_t size, off_t offset) {
    REAL(pwrite);
    if (fd > 2 && fault_hit()) return -1;
    return real_pwrite(fd, buffer, size, offset);
}

ssize_t pwrite64(int fd, const void* buffer, size_t size, off_t offset) {
    REAL(pwrite64);
    if (fd > 2 && fault_hit()) return -1;
    return real_pwrite64(fd, buffer, size, offset);
}

ssize_t writev(int fd, const struct iovec* iov, int count) {
    REAL(writev);
    if (fd > 2 && fault_hit()) return -1;
    return real_writev(fd, iov, count);
}

ssize_t pwritev(int fd, const struct iovec* iov, int count, off_t offset) {
    REAL(pwritev);
    if (fd > 2 && fault_hit()) return -1;
    return real_pwritev(fd, iov, count, offset);
}

int fsync(int fd) {
    REAL(fsync);
    if (fd > 2 && fault_hit()) return -1;
    return real_fsync(fd);
}

int fdatasync(int fd) {
    REAL(fdatasync);
    if (fd > 2 && fault_hit()) return -1;
    return real_fdatasync(fd);
}

int rename(const char* from, const char* to) {
    REAL(rename);
    if (fault_hit()) return -1;
    return real_rename(from, to);
}
