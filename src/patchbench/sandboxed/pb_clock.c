/* patchbench (harness-owned): the clocks a native test process reads, a little ahead when a control asks.
 *
 * Preloaded (LD_PRELOAD) into a Rust test run. An "aged" control (the canary's AGED variant) finds
 * patchbench_clock_advance with dlsym and calls it before each of its statements: from then on, the
 * calling thread's clocks (clock_gettime's monotonic, boot and real-time clocks, gettimeofday, time) read
 * that much later. Code right only while an object is seconds old meets an old one. Ahead by nothing (every
 * other thread, every other process of the run), each call returns what the C library returns. An advance
 * never reaches another thread; a Python copy, which runs on the thread later tests run on, resets its own
 * when it ends.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <sys/time.h>
#include <time.h>

static __thread int64_t ahead_ns;

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);
typedef int (*gettimeofday_fn)(struct timeval *, void *);
typedef time_t (*time_fn)(time_t *);

void patchbench_clock_advance(int64_t ns) {
    if (ns > 0 && ahead_ns <= INT64_MAX - ns) ahead_ns += ns;
}

/* The calling thread's clocks back to the C library's (a Python copy runs on the thread later tests run on:
 * it ends with this, so no later test reads an advanced clock). */
void patchbench_clock_reset(void) {
    ahead_ns = 0;
}

static clock_gettime_fn real_clock_gettime;
static gettimeofday_fn real_gettimeofday;
static time_fn real_time;

__attribute__((constructor)) static void resolve(void) {
    real_clock_gettime = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
    real_gettimeofday = (gettimeofday_fn)dlsym(RTLD_NEXT, "gettimeofday");
    real_time = (time_fn)dlsym(RTLD_NEXT, "time");
}

int clock_gettime(clockid_t id, struct timespec *ts) {
    clock_gettime_fn real = real_clock_gettime;
    int rc = real ? real(id, ts) : -1;
    if (rc == 0 && ahead_ns) {
        switch (id) {
        case CLOCK_MONOTONIC:
        case CLOCK_MONOTONIC_RAW:
        case CLOCK_MONOTONIC_COARSE:
        case CLOCK_BOOTTIME:
        case CLOCK_REALTIME:
        case CLOCK_REALTIME_COARSE: {
            int64_t ns = (int64_t)ts->tv_nsec + ahead_ns % 1000000000;
            ts->tv_sec += ahead_ns / 1000000000 + ns / 1000000000;
            ts->tv_nsec = ns % 1000000000;
            break;
        }
        default:
            break;
        }
    }
    return rc;
}

int gettimeofday(struct timeval *tv, void *tz) {
    gettimeofday_fn real = real_gettimeofday;
    int rc = real ? real(tv, tz) : -1;
    if (rc == 0 && ahead_ns) {
        int64_t us = (int64_t)tv->tv_usec + (ahead_ns / 1000) % 1000000;
        tv->tv_sec += ahead_ns / 1000000000 + us / 1000000;
        tv->tv_usec = us % 1000000;
    }
    return rc;
}

time_t time(time_t *out) {
    time_fn real = real_time;
    time_t now = real ? real(NULL) : (time_t)-1;
    if (now != (time_t)-1) now += ahead_ns / 1000000000;
    if (out) *out = now;
    return now;
}
