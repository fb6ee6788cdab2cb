// The C floor for jetsim's event rate: the classic hold model on a 4-ary heap of
// (integer microsecond time, push sequence) keys, as SimKernel's EventQueue orders
// events. Pop the earliest, push one at now + Exp(1 s). Not part of the product: a
// benchmark reference (docs/performance.md).
//   cc -O2 -o hold Benchmarks/HoldReference/hold.c -lm && ./hold 1000 20000000
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct { int64_t t; uint64_t seq; } Key;
static Key *h; static size_t n;
static int less(Key a, Key b) { return a.t < b.t || (a.t == b.t && a.seq < b.seq); }
static void push(Key k) {
    size_t i = n++;
    while (i > 0) { size_t p = (i - 1) / 4; if (!less(k, h[p])) break; h[i] = h[p]; i = p; }
    h[i] = k;
}
static Key pop(void) {
    Key top = h[0], last = h[--n]; size_t i = 0;
    for (;;) {
        size_t c = 4 * i + 1, best = c;
        if (c >= n) break;
        for (size_t j = c + 1; j < c + 4 && j < n; j++) if (less(h[j], h[best])) best = j;
        if (!less(h[best], last)) break;
        h[i] = h[best]; i = best;
    }
    h[i] = last;
    return top;
}
static uint64_t s = 0x9E3779B97F4A7C15ull;  // xorshift64*: the variates' cost, not their quality
static double unit(void) { s ^= s >> 12; s ^= s << 25; s ^= s >> 27; return ((s * 2685821657736338717ull) >> 11) * 0x1.0p-53; }
static int64_t expo(void) { return (int64_t)(-log(1.0 - unit()) * 1e6); }

int main(int argc, char **argv) {
    size_t pending = argc > 1 ? strtoull(argv[1], 0, 10) : 1000;
    uint64_t holds = argc > 2 ? strtoull(argv[2], 0, 10) : 10000000;
    h = malloc(sizeof(Key) * (pending + 1));
    uint64_t seq = 0;
    for (size_t i = 0; i < pending; i++) push((Key){expo(), seq++});
    for (size_t i = 0; i < pending; i++) { Key k = pop(); push((Key){k.t + expo(), seq++}); }  // warm-up
    struct timespec a, b; clock_gettime(CLOCK_MONOTONIC, &a);
    int64_t sum = 0;
    for (uint64_t i = 0; i < holds; i++) { Key k = pop(); sum += k.t; push((Key){k.t + expo(), seq++}); }
    clock_gettime(CLOCK_MONOTONIC, &b);
    double sec = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9;
    printf("pending,holds,seconds,holds_per_s,ns_per_hold\n%zu,%llu,%.3f,%.0f,%.1f\n", pending, (unsigned long long)holds, sec,
           holds / sec, sec * 1e9 / holds);
    return sum == 42;  // keeps the loop
}
