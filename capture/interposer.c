/* trainio_capture_preload: the I/O interposer of `trainio-cli capture` (docs/capture.md).
 *
 * Loaded with LD_PRELOAD into the training job and every process it starts (DataLoader workers are
 * forked or spawned Python processes; LD_PRELOAD is inherited through the environment). It wraps the
 * calls a data loader reads files with (open/openat/open64, read/pread/readv/preadv, lseek, mmap/munmap,
 * close, fopen/fread/fclose) through dlsym(RTLD_NEXT), and records, for DATA files only, one event per
 * call: monotonic start time and duration in ns, pid, tid, fd, operation, offset, bytes, and the path at
 * open.
 *
 * Which files are data files is decided once, at open (the filter rule, given by `capture` in the
 * environment so that the trace header states the very rule that was applied): a file opened
 * read-only, regular, whose absolute path starts with none of TRAINIO_CAPTURE_EXCLUDE_PREFIXES, contains
 * none of TRAINIO_CAPTURE_EXCLUDE_PARTS and ends with none of TRAINIO_CAPTURE_EXCLUDE_SUFFIXES (all
 * colon-separated), and is not inside TRAINIO_CAPTURE_DIR. Every other descriptor costs one table
 * look-up per call.
 *
 * Cost on the hot path: two clock_gettime (vDSO) and a 64-byte store into the calling thread's own ring
 * (single producer, single consumer): no allocation, no lock. A writer thread per process drains the
 * rings every 50 ms into TRAINIO_CAPTURE_DIR/events.<pid>.jsonl (one JSON object a line, O_APPEND, whole
 * lines per write); a thread whose ring is full drains it itself. Everything left is drained at exit,
 * at _exit (os._exit ends multiprocessing children without running atexit) and by the library's
 * destructor. After fork() the child forgets the parent's rings and writes its own file.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

/* ---- the real functions ---- */

static int (*real_open)(const char*, int, ...);
static int (*real_open64)(const char*, int, ...);
static int (*real_openat)(int, const char*, int, ...);
static int (*real_openat64)(int, const char*, int, ...);
static int (*real___open_2)(const char*, int);
static int (*real___open64_2)(const char*, int);
static ssize_t (*real_read)(int, void*, size_t);
static ssize_t (*real_pread)(int, void*, size_t, off_t);
static ssize_t (*real_pread64)(int, void*, size_t, off64_t);
static ssize_t (*real_readv)(int, const struct iovec*, int);
static ssize_t (*real_preadv)(int, const struct iovec*, int, off_t);
static ssize_t (*real_preadv64)(int, const struct iovec*, int, off64_t);
static off_t (*real_lseek)(int, off_t, int);
static off64_t (*real_lseek64)(int, off64_t, int);
static void* (*real_mmap)(void*, size_t, int, int, int, off_t);
static void* (*real_mmap64)(void*, size_t, int, int, int, off64_t);
static int (*real_munmap)(void*, size_t);
static int (*real_close)(int);
static FILE* (*real_fopen)(const char*, const char*);
static FILE* (*real_fopen64)(const char*, const char*);
static size_t (*real_fread)(void*, size_t, size_t, FILE*);
static int (*real_fclose)(FILE*);
static void (*real__exit)(int) __attribute__((noreturn));
static void (*real__Exit)(int) __attribute__((noreturn));

static void* next_sym(const char* name) { return dlsym(RTLD_NEXT, name); }

static void resolve(void) {
    /* Idempotent and race-free enough: every thread stores the same pointers. */
    real_open = next_sym("open");
    real_open64 = next_sym("open64");
    real_openat = next_sym("openat");
    real_openat64 = next_sym("openat64");
    real___open_2 = next_sym("__open_2");
    real___open64_2 = next_sym("__open64_2");
    real_read = next_sym("read");
    real_pread = next_sym("pread");
    real_pread64 = next_sym("pread64");
    real_readv = next_sym("readv");
    real_preadv = next_sym("preadv");
    real_preadv64 = next_sym("preadv64");
    real_lseek = next_sym("lseek");
    real_lseek64 = next_sym("lseek64");
    real_mmap = next_sym("mmap");
    real_mmap64 = next_sym("mmap64");
    real_munmap = next_sym("munmap");
    real_close = next_sym("close");
    real_fopen = next_sym("fopen");
    real_fopen64 = next_sym("fopen64");
    real_fread = next_sym("fread");
    real_fclose = next_sym("fclose");
    real__exit = next_sym("_exit");
    real__Exit = next_sym("_Exit");
}

#define ENSURE(fn) \
    do { \
        if (__builtin_expect(!(fn), 0)) resolve(); \
    } while (0)

/* ---- events ---- */

enum { OP_OPEN = 1, OP_READ, OP_PREAD, OP_READV, OP_PREADV, OP_MMAP, OP_MUNMAP, OP_CLOSE, OP_FREAD };
static const char* const kOpNames[] = {"", "open", "read", "pread", "readv", "preadv", "mmap", "munmap", "close", "fread"};

/* One slot of a ring. An open is followed by ceil((len + 1) / 64) slots holding its path. */
typedef struct {
    uint64_t t;    /* CLOCK_MONOTONIC at the call's start, ns */
    uint64_t dur;  /* the call's duration, ns */
    uint64_t off;  /* file offset (read: the descriptor's position before the call) */
    uint64_t n;    /* bytes read / mapped; open: the file's size */
    uint64_t addr; /* mmap/munmap: the address */
    int32_t fd;
    uint32_t tid;
    uint16_t op;
    uint16_t pathSlots;
    uint32_t pad[3];
} Slot;
_Static_assert(sizeof(Slot) == 64, "a slot is one cache line");

#define RING_SLOTS 4096u /* 256 KiB per reading thread */

typedef struct Ring {
    Slot slots[RING_SLOTS];
    _Atomic uint64_t head; /* written by the owning thread only */
    _Atomic uint64_t tail; /* written by a drainer, under mu */
    pthread_mutex_t mu;    /* drainers (the writer thread, the owner when full, exit) */
    _Atomic int dead;      /* the owning thread has exited */
    struct Ring* next;
} Ring;

typedef struct {
    Ring* ring;
    uint32_t tid;
    pid_t pid; /* the process this state belongs to: a forked child starts afresh */
} ThreadState;

static __thread ThreadState tls __attribute__((tls_model("initial-exec")));

/* ---- process state ---- */

static pid_t g_pid;
static int g_enabled; /* TRAINIO_CAPTURE_DIR set and usable */
static char g_dir[2048];
static size_t g_dirLen;
static char g_prefixes[4096], g_parts[4096], g_suffixes[1024];
static pthread_mutex_t g_listMu = PTHREAD_MUTEX_INITIALIZER;
static Ring* g_rings;
static int g_writerStarted;
static int g_outFd = -1;
static pthread_key_t g_exitKey;
static atomic_int g_inExit;

/* Per descriptor: is it a data file, and its position (read() has no offset argument). */
#define MAX_FDS 65536
typedef struct {
    uint8_t data;
    uint64_t pos;
} FdState;
static FdState g_fds[MAX_FDS];

/* Data-file mappings, so that munmap records only those (Python unmaps its own memory constantly). */
#define MAX_MAPS 1024
static struct {
    uintptr_t addr;
    size_t len;
} g_maps[MAX_MAPS];
static pthread_mutex_t g_mapsMu = PTHREAD_MUTEX_INITIALIZER;

static inline uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline int is_data(int fd) { return g_enabled && fd >= 0 && fd < MAX_FDS && g_fds[fd].data; }

/* ---- output ---- */

typedef struct {
    char buf[16384];
    size_t len;
} Out;

static void out_flush(Out* o) {
    ENSURE(real_open);
    if (o->len == 0) return;
    if (g_outFd < 0) {
        char path[2300];
        snprintf(path, sizeof path, "%s/events.%d.jsonl", g_dir, (int)getpid());
        g_outFd = real_open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    }
    if (g_outFd >= 0) {
        size_t done = 0;
        while (done < o->len) {
            ssize_t w = write(g_outFd, o->buf + done, o->len - done);
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) break;
            done += (size_t)w;
        }
    }
    o->len = 0;
}

static void out_line(Out* o, const char* line, size_t n) {
    if (o->len + n > sizeof o->buf) out_flush(o);
    if (n > sizeof o->buf) return;
    memcpy(o->buf + o->len, line, n);
    o->len += n;
}

/* JSON string body: quotes, backslashes and control characters escaped. */
static size_t json_escape(char* dst, size_t cap, const char* s) {
    size_t j = 0;
    for (; *s && j + 7 < cap; ++s) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            dst[j++] = '\\';
            dst[j++] = (char)c;
        } else if (c < 0x20) {
            j += (size_t)snprintf(dst + j, cap - j, "\\u%04x", c);
        } else {
            dst[j++] = (char)c;
        }
    }
    dst[j] = 0;
    return j;
}

/* Formats the slots [tail, head) of a ring; the caller holds ring->mu. */
static void drain_ring(Ring* r, Out* o) {
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    const uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
    char line[8800];
    char path[4160];
    char esc[8400];
    while (tail < head) {
        const Slot s = r->slots[tail % RING_SLOTS];
        ++tail;
        int n;
        if (s.op == OP_OPEN) {
            size_t k = 0;
            for (unsigned i = 0; i < s.pathSlots && tail < head; ++i, ++tail) {
                memcpy(path + k, &r->slots[tail % RING_SLOTS], sizeof(Slot));
                k += sizeof(Slot);
            }
            path[k < sizeof path ? k : sizeof path - 1] = 0;
            json_escape(esc, sizeof esc, path);
            char wait[40] = "";
            if (s.off) snprintf(wait, sizeof wait, "\"wait\":%llu,", (unsigned long long)(s.off - 1));
            n = snprintf(line, sizeof line,
                         "{\"op\":\"open\",\"t\":%llu,\"dur\":%llu,\"pid\":%d,\"tid\":%u,\"fd\":%d,\"size\":%llu,\"cpu\":%llu,%s\"path\":\"%s\"}\n",
                         (unsigned long long)s.t, (unsigned long long)s.dur, (int)g_pid, s.tid, s.fd,
                         (unsigned long long)s.n, (unsigned long long)s.addr, wait, esc);
        } else if (s.op == OP_MMAP || s.op == OP_MUNMAP) {
            n = snprintf(line, sizeof line,
                         "{\"op\":\"%s\",\"t\":%llu,\"dur\":%llu,\"pid\":%d,\"tid\":%u,\"fd\":%d,\"off\":%llu,\"n\":%llu,\"addr\":%llu}\n",
                         kOpNames[s.op], (unsigned long long)s.t, (unsigned long long)s.dur, (int)g_pid, s.tid, s.fd,
                         (unsigned long long)s.off, (unsigned long long)s.n, (unsigned long long)s.addr);
        } else if (s.op == OP_CLOSE) {
            n = snprintf(line, sizeof line, "{\"op\":\"close\",\"t\":%llu,\"dur\":%llu,\"pid\":%d,\"tid\":%u,\"fd\":%d,\"cpu\":%llu}\n",
                         (unsigned long long)s.t, (unsigned long long)s.dur, (int)g_pid, s.tid, s.fd, (unsigned long long)s.addr);
        } else if (s.op > 0 && s.op <= OP_FREAD) {
            n = snprintf(line, sizeof line,
                         "{\"op\":\"%s\",\"t\":%llu,\"dur\":%llu,\"pid\":%d,\"tid\":%u,\"fd\":%d,\"off\":%llu,\"n\":%llu}\n",
                         kOpNames[s.op], (unsigned long long)s.t, (unsigned long long)s.dur, (int)g_pid, s.tid, s.fd,
                         (unsigned long long)s.off, (unsigned long long)s.n);
        } else {
            continue;
        }
        if (n > 0) out_line(o, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    }
    atomic_store_explicit(&r->tail, tail, memory_order_release);
}

static void drain_locked_list(void) {
    static Out o; /* used under g_listMu only */
    Ring** link = &g_rings;
    while (*link) {
        Ring* r = *link;
        pthread_mutex_lock(&r->mu);
        drain_ring(r, &o);
        pthread_mutex_unlock(&r->mu);
        if (atomic_load(&r->dead)) {
            *link = r->next;
            pthread_mutex_destroy(&r->mu);
            munmap(r, sizeof(Ring));
        } else {
            link = &r->next;
        }
    }
    out_flush(&o);
}

static void drain_all(void) {
    if (!g_enabled) return;
    pthread_mutex_lock(&g_listMu);
    drain_locked_list();
    pthread_mutex_unlock(&g_listMu);
}

static void* writer_main(void* arg) {
    (void)arg;
    const struct timespec period = {0, 50 * 1000 * 1000};
    for (;;) {
        nanosleep(&period, NULL);
        drain_all();
    }
    return NULL;
}

/* The process's first line: who it is and who started it (workers name the main process). */
static void write_process_line(void) {
    char exe[1024] = "";
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[k > 0 ? k : 0] = 0;
    char esc[2200];
    json_escape(esc, sizeof esc, exe);
    char line[2600];
    int n = snprintf(line, sizeof line, "{\"op\":\"process\",\"t\":%llu,\"pid\":%d,\"ppid\":%d,\"exe\":\"%s\"}\n",
                     (unsigned long long)now_ns(), (int)g_pid, (int)getppid(), esc);
    Out o;
    o.len = 0;
    if (n > 0) out_line(&o, line, (size_t)n);
    out_flush(&o);
}

static void thread_exit(void* p) {
    Ring* r = p;
    if (r) atomic_store(&r->dead, 1);
}

/* The calling thread's ring, created on its first data event (and afresh in a forked child). */
static Ring* my_ring(void) {
    if (__builtin_expect(tls.pid == g_pid && tls.ring != NULL, 1)) return tls.ring;
    tls.pid = g_pid;
    tls.tid = (uint32_t)syscall(SYS_gettid);
    Ring* r = mmap(NULL, sizeof(Ring), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (r == MAP_FAILED) {
        tls.ring = NULL;
        return NULL;
    }
    atomic_init(&r->head, 0);
    atomic_init(&r->tail, 0);
    atomic_init(&r->dead, 0);
    pthread_mutex_init(&r->mu, NULL);
    pthread_mutex_lock(&g_listMu);
    r->next = g_rings;
    g_rings = r;
    if (!g_writerStarted) {
        g_writerStarted = 1;
        write_process_line();
        pthread_t th;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attr, 256 * 1024);
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old); /* the writer takes no signal meant for the job */
        pthread_create(&th, &attr, writer_main, NULL);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        pthread_attr_destroy(&attr);
    }
    pthread_mutex_unlock(&g_listMu);
    pthread_setspecific(g_exitKey, r);
    tls.ring = r;
    return r;
}

/* Appends one event (and an open's path) to the calling thread's ring. */
static void record(uint16_t op, int fd, uint64_t t, uint64_t dur, uint64_t off, uint64_t n, uint64_t addr,
                   const char* path) {
    if (atomic_load_explicit(&g_inExit, memory_order_relaxed)) return;
    Ring* r = my_ring();
    if (!r) return;
    size_t plen = path ? strlen(path) : 0;
    if (plen > 4095) plen = 4095;
    const unsigned pathSlots = path ? (unsigned)((plen + 1 + sizeof(Slot) - 1) / sizeof(Slot)) : 0;
    const uint64_t need = 1 + pathSlots;
    uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    if (head + need - atomic_load_explicit(&r->tail, memory_order_acquire) > RING_SLOTS) {
        Out o; /* full: drain it ourselves (rare: the writer empties it every 50 ms) */
        o.len = 0;
        pthread_mutex_lock(&r->mu);
        drain_ring(r, &o);
        pthread_mutex_unlock(&r->mu);
        out_flush(&o);
    }
    Slot* s = &r->slots[head % RING_SLOTS];
    s->t = t;
    s->dur = dur;
    s->off = off;
    s->n = n;
    s->addr = addr;
    s->fd = fd;
    s->tid = tls.tid;
    s->op = op;
    s->pathSlots = (uint16_t)pathSlots;
    for (unsigned i = 0; i < pathSlots; ++i) {
        char* dst = (char*)&r->slots[(head + 1 + i) % RING_SLOTS];
        const size_t from = (size_t)i * sizeof(Slot);
        size_t k = plen + 1 - from;
        if (k > sizeof(Slot)) k = sizeof(Slot);
        memcpy(dst, path + from, k);
        if (from + k == plen + 1) dst[k - 1] = 0;
    }
    atomic_store_explicit(&r->head, head + need, memory_order_release);
}

/* ---- the filter rule ---- */

/* Does `s` match any element of the colon-separated `list` under `cmp`? */
static int any_of(const char* list, const char* s, int (*cmp)(const char*, const char*, size_t)) {
    for (const char* p = list; *p;) {
        const char* e = strchr(p, ':');
        const size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n > 0 && cmp(s, p, n)) return 1;
        if (!e) break;
        p = e + 1;
    }
    return 0;
}
static int starts_with(const char* s, const char* p, size_t n) { return strncmp(s, p, n) == 0; }
static int contains(const char* s, const char* p, size_t n) {
    for (const char* q = s; (q = strchr(q, p[0])) != NULL; ++q)
        if (strncmp(q, p, n) == 0) return 1;
    return 0;
}
static int ends_with(const char* s, const char* p, size_t n) {
    const size_t k = strlen(s);
    return k >= n && strncmp(s + k - n, p, n) == 0;
}

/* Called after a successful open for reading: decides whether fd is a data file and records it. */
static void classify(int fd, const char* given, uint64_t t, uint64_t dur) {
    if (!g_enabled || fd < 0 || fd >= MAX_FDS) return;
    g_fds[fd].data = 0;
    g_fds[fd].pos = 0;
    /* The cheap test first (Python's imports open thousands of .py/.pyc/.so files). */
    if (given && any_of(g_suffixes, given, ends_with)) return;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return;
    char path[4096];
    if (given && given[0] == '/' && strlen(given) < sizeof path && !strstr(given, "/./") && !strstr(given, "/../")) {
        strcpy(path, given); /* absolute already: no system call */
    } else {
        char link[64]; /* relative, or through dirfd: the kernel's name for it */
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t k = readlink(link, path, sizeof path - 1);
        if (k <= 0) return;
        path[k] = 0;
    }
    if (strncmp(path, g_dir, g_dirLen) == 0 && (path[g_dirLen] == '/' || path[g_dirLen] == 0)) return;
    if (any_of(g_prefixes, path, starts_with) || any_of(g_parts, path, contains) || any_of(g_suffixes, path, ends_with))
        return;
    g_fds[fd].data = 1;
    /* The thread's CPU clock and its time spent runnable but waiting for a core, at each sample's open: the
     * derivation tells a reader's CPU work between two samples from its waits for a core and from its idle
     * or blocked time. CLOCK_THREAD_CPUTIME_ID is not in the vDSO, and the run-queue wait is the second
     * field of /proc/thread-self/schedstat: four system calls per data-file open, none on other calls.
     * Carried in the slot's addr (CPU) and off (wait + 1; 0: unknown), both unused by an open. */
    struct timespec cpu;
    const uint64_t cpuNs = clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0
                               ? (uint64_t)cpu.tv_sec * 1000000000ull + (uint64_t)cpu.tv_nsec : 0;
    uint64_t waitNs = 0;
    ENSURE(real_read);
    ENSURE(real_close);
    const int sfd = real_open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC, 0);
    if (sfd >= 0) {
        char sb[96];
        const ssize_t k = real_read(sfd, sb, sizeof sb - 1);
        real_close(sfd);
        if (k > 0) {
            sb[k] = 0;
            unsigned long long run = 0, wait = 0;
            if (sscanf(sb, "%llu %llu", &run, &wait) == 2) waitNs = (uint64_t)wait + 1;
        }
    }
    record(OP_OPEN, fd, t, dur, waitNs, (uint64_t)st.st_size, cpuNs, path);
}

/* Data files are opened read-only: a file opened for writing too is the job's own (shared memory, logs). */
static inline int reads(int flags) { return (flags & O_ACCMODE) == O_RDONLY; }

/* ---- set-up, fork, exit ---- */

static void copy_env(char* dst, size_t cap, const char* name) {
    const char* v = getenv(name);
    snprintf(dst, cap, "%s", v ? v : "");
}

static void atfork_prepare(void) { pthread_mutex_lock(&g_listMu); }
static void atfork_parent(void) { pthread_mutex_unlock(&g_listMu); }
static void atfork_child(void) {
    /* The parent's rings and file are the parent's: its writer drains them. */
    g_pid = getpid();
    g_rings = NULL;
    g_writerStarted = 0;
    if (g_outFd >= 0) real_close(g_outFd);
    g_outFd = -1;
    pthread_mutex_init(&g_listMu, NULL);
    pthread_mutex_init(&g_mapsMu, NULL);
}

__attribute__((constructor)) static void capture_init(void) {
    resolve();
    g_pid = getpid();
    const char* dir = getenv("TRAINIO_CAPTURE_DIR");
    if (!dir || !*dir || strlen(dir) >= sizeof g_dir) return;
    snprintf(g_dir, sizeof g_dir, "%s", dir);
    g_dirLen = strlen(g_dir);
    while (g_dirLen > 1 && g_dir[g_dirLen - 1] == '/') g_dir[--g_dirLen] = 0;
    copy_env(g_prefixes, sizeof g_prefixes, "TRAINIO_CAPTURE_EXCLUDE_PREFIXES");
    copy_env(g_parts, sizeof g_parts, "TRAINIO_CAPTURE_EXCLUDE_PARTS");
    copy_env(g_suffixes, sizeof g_suffixes, "TRAINIO_CAPTURE_EXCLUDE_SUFFIXES");
    pthread_key_create(&g_exitKey, thread_exit);
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
    g_enabled = 1;
}

__attribute__((destructor)) static void capture_fini(void) {
    drain_all();
    atomic_store(&g_inExit, 1);
}

EXPORT void _exit(int status) {
    ENSURE(real__exit);
    drain_all();
    atomic_store(&g_inExit, 1);
    real__exit(status);
}

EXPORT void _Exit(int status) {
    ENSURE(real__Exit);
    drain_all();
    atomic_store(&g_inExit, 1);
    real__Exit(status);
}

/* ---- the wrappers ---- */

static inline int mode_needed(int flags) { return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE; }

/* The optional mode argument of the open family: read only when the flags say it was passed (va_start must
 * run in the variadic function itself, hence a macro). */
#define OPEN_MODE_ARG(NAME) \
    mode_t NAME = 0; \
    if (mode_needed(flags)) { \
        va_list ap; \
        va_start(ap, flags); \
        NAME = va_arg(ap, mode_t); \
        va_end(ap); \
    }

#define OPEN_BODY(CALL) \
    const uint64_t t = now_ns(); \
    const int fd = CALL; \
    if (fd >= 0 && g_enabled) { \
        if (reads(flags)) classify(fd, path, t, now_ns() - t); \
        else if (fd < MAX_FDS) g_fds[fd].data = 0; \
    } \
    return fd;

EXPORT int open(const char* path, int flags, ...) {
    ENSURE(real_open);
    OPEN_MODE_ARG(mode);
    OPEN_BODY(real_open(path, flags, mode))
}

EXPORT int open64(const char* path, int flags, ...) {
    ENSURE(real_open64);
    OPEN_MODE_ARG(mode);
    OPEN_BODY(real_open64(path, flags, mode))
}

EXPORT int openat(int dirfd, const char* path, int flags, ...) {
    ENSURE(real_openat);
    OPEN_MODE_ARG(mode);
    OPEN_BODY(real_openat(dirfd, path, flags, mode))
}

EXPORT int openat64(int dirfd, const char* path, int flags, ...) {
    ENSURE(real_openat64);
    OPEN_MODE_ARG(mode);
    OPEN_BODY(real_openat64(dirfd, path, flags, mode))
}

EXPORT int __open_2(const char* path, int flags) {
    ENSURE(real___open_2);
    OPEN_BODY(real___open_2(path, flags))
}

EXPORT int __open64_2(const char* path, int flags) {
    ENSURE(real___open64_2);
    OPEN_BODY(real___open64_2(path, flags))
}

EXPORT ssize_t read(int fd, void* buf, size_t count) {
    ENSURE(real_read);
    if (!is_data(fd)) return real_read(fd, buf, count);
    const uint64_t t = now_ns();
    const ssize_t r = real_read(fd, buf, count);
    const uint64_t d = now_ns() - t;
    const uint64_t pos = g_fds[fd].pos;
    if (r > 0) g_fds[fd].pos = pos + (uint64_t)r;
    if (r >= 0) record(OP_READ, fd, t, d, pos, (uint64_t)r, 0, NULL);
    return r;
}

static ssize_t pread_common(int op, int fd, void* buf, size_t count, off64_t off, int wide) {
    const uint64_t t = now_ns();
    const ssize_t r = wide ? real_pread64(fd, buf, count, off) : real_pread(fd, buf, count, (off_t)off);
    if (r >= 0) record((uint16_t)op, fd, t, now_ns() - t, (uint64_t)off, (uint64_t)r, 0, NULL);
    return r;
}

EXPORT ssize_t pread(int fd, void* buf, size_t count, off_t off) {
    ENSURE(real_pread);
    if (!is_data(fd)) return real_pread(fd, buf, count, off);
    return pread_common(OP_PREAD, fd, buf, count, off, 0);
}

EXPORT ssize_t pread64(int fd, void* buf, size_t count, off64_t off) {
    ENSURE(real_pread64);
    if (!is_data(fd)) return real_pread64(fd, buf, count, off);
    return pread_common(OP_PREAD, fd, buf, count, off, 1);
}

EXPORT ssize_t readv(int fd, const struct iovec* iov, int n) {
    ENSURE(real_readv);
    if (!is_data(fd)) return real_readv(fd, iov, n);
    const uint64_t t = now_ns();
    const ssize_t r = real_readv(fd, iov, n);
    const uint64_t d = now_ns() - t;
    const uint64_t pos = g_fds[fd].pos;
    if (r > 0) g_fds[fd].pos = pos + (uint64_t)r;
    if (r >= 0) record(OP_READV, fd, t, d, pos, (uint64_t)r, 0, NULL);
    return r;
}

EXPORT ssize_t preadv(int fd, const struct iovec* iov, int n, off_t off) {
    ENSURE(real_preadv);
    if (!is_data(fd)) return real_preadv(fd, iov, n, off);
    const uint64_t t = now_ns();
    const ssize_t r = real_preadv(fd, iov, n, off);
    if (r >= 0) record(OP_PREADV, fd, t, now_ns() - t, (uint64_t)off, (uint64_t)r, 0, NULL);
    return r;
}

EXPORT ssize_t preadv64(int fd, const struct iovec* iov, int n, off64_t off) {
    ENSURE(real_preadv64);
    if (!is_data(fd)) return real_preadv64(fd, iov, n, off);
    const uint64_t t = now_ns();
    const ssize_t r = real_preadv64(fd, iov, n, off);
    if (r >= 0) record(OP_PREADV, fd, t, now_ns() - t, (uint64_t)off, (uint64_t)r, 0, NULL);
    return r;
}

EXPORT off_t lseek(int fd, off_t off, int whence) {
    ENSURE(real_lseek);
    const off_t r = real_lseek(fd, off, whence);
    if (r >= 0 && is_data(fd)) g_fds[fd].pos = (uint64_t)r;
    return r;
}

EXPORT off64_t lseek64(int fd, off64_t off, int whence) {
    ENSURE(real_lseek64);
    const off64_t r = real_lseek64(fd, off, whence);
    if (r >= 0 && is_data(fd)) g_fds[fd].pos = (uint64_t)r;
    return r;
}

static void remember_map(void* addr, size_t len) {
    pthread_mutex_lock(&g_mapsMu);
    for (int i = 0; i < MAX_MAPS; ++i)
        if (g_maps[i].addr == 0) {
            g_maps[i].addr = (uintptr_t)addr;
            g_maps[i].len = len;
            break;
        }
    pthread_mutex_unlock(&g_mapsMu);
}

/* Forgets a data-file mapping that starts at addr; returns 1 when it was one. */
static int forget_map(void* addr) {
    int found = 0;
    pthread_mutex_lock(&g_mapsMu);
    for (int i = 0; i < MAX_MAPS; ++i)
        if (g_maps[i].addr == (uintptr_t)addr) {
            g_maps[i].addr = 0;
            found = 1;
            break;
        }
    pthread_mutex_unlock(&g_mapsMu);
    return found;
}

static void* mmap_common(void* addr, size_t len, int prot, int flags, int fd, off64_t off, int wide) {
    const uint64_t t = now_ns();
    void* r = wide ? real_mmap64(addr, len, prot, flags, fd, off) : real_mmap(addr, len, prot, flags, fd, (off_t)off);
    if (r != MAP_FAILED) {
        remember_map(r, len);
        record(OP_MMAP, fd, t, now_ns() - t, (uint64_t)off, len, (uint64_t)(uintptr_t)r, NULL);
    }
    return r;
}

EXPORT void* mmap(void* addr, size_t len, int prot, int flags, int fd, off_t off) {
    ENSURE(real_mmap);
    if ((flags & MAP_ANONYMOUS) || !is_data(fd)) return real_mmap(addr, len, prot, flags, fd, off);
    return mmap_common(addr, len, prot, flags, fd, off, 0);
}

EXPORT void* mmap64(void* addr, size_t len, int prot, int flags, int fd, off64_t off) {
    ENSURE(real_mmap64);
    if ((flags & MAP_ANONYMOUS) || !is_data(fd)) return real_mmap64(addr, len, prot, flags, fd, off);
    return mmap_common(addr, len, prot, flags, fd, off, 1);
}

EXPORT int munmap(void* addr, size_t len) {
    ENSURE(real_munmap);
    if (!g_enabled) return real_munmap(addr, len);
    const uint64_t t = now_ns();
    const int r = real_munmap(addr, len);
    if (r == 0 && forget_map(addr)) record(OP_MUNMAP, -1, t, now_ns() - t, 0, len, (uint64_t)(uintptr_t)addr, NULL);
    return r;
}

/* The thread's CPU clock after a data file's close (the close event's "cpu"): with the open's, the CPU a
 * sample took inside its session (reads, and a parse between them) and outside it (decode, transforms). */
static uint64_t thread_cpu_ns(void) {
    struct timespec cpu;
    return clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0 ? (uint64_t)cpu.tv_sec * 1000000000ull + (uint64_t)cpu.tv_nsec : 0;
}

EXPORT int close(int fd) {
    ENSURE(real_close);
    if (!is_data(fd)) return real_close(fd);
    g_fds[fd].data = 0;
    const uint64_t t = now_ns();
    const int r = real_close(fd);
    record(OP_CLOSE, fd, t, now_ns() - t, 0, 0, thread_cpu_ns(), NULL);
    return r;
}

static int fopen_reads(const char* mode) { return mode && mode[0] == 'r' && strchr(mode, '+') == NULL; }

static FILE* fopen_common(FILE* (*fn)(const char*, const char*), const char* path, const char* mode) {
    const uint64_t t = now_ns();
    FILE* f = fn(path, mode);
    if (f && g_enabled) {
        const int fd = fileno(f);
        if (fopen_reads(mode)) classify(fd, path, t, now_ns() - t);
        else if (fd >= 0 && fd < MAX_FDS) g_fds[fd].data = 0;
    }
    return f;
}

EXPORT FILE* fopen(const char* path, const char* mode) {
    ENSURE(real_fopen);
    return fopen_common(real_fopen, path, mode);
}

EXPORT FILE* fopen64(const char* path, const char* mode) {
    ENSURE(real_fopen64);
    return fopen_common(real_fopen64, path, mode);
}

EXPORT size_t fread(void* buf, size_t size, size_t n, FILE* f) {
    ENSURE(real_fread);
    const int fd = f ? fileno(f) : -1;
    if (!is_data(fd)) return real_fread(buf, size, n, f);
    const uint64_t t = now_ns();
    const size_t r = real_fread(buf, size, n, f);
    const uint64_t pos = g_fds[fd].pos;
    g_fds[fd].pos = pos + (uint64_t)r * size;
    record(OP_FREAD, fd, t, now_ns() - t, pos, (uint64_t)r * size, 0, NULL);
    return r;
}

EXPORT int fclose(FILE* f) {
    ENSURE(real_fclose);
    const int fd = f ? fileno(f) : -1;
    if (!is_data(fd)) return real_fclose(f);
    g_fds[fd].data = 0;
    const uint64_t t = now_ns();
    const int r = real_fclose(f);
    record(OP_CLOSE, fd, t, now_ns() - t, 0, 0, thread_cpu_ns(), NULL);
    return r;
}
