/* The reference for jetsim's replay speed (a benchmark, not part of jetsim): reads
 * a usage CSV (device,time_s,app,duration_s; plain, no quoting) with fgets/strtod
 * and runs an LRU cache of CAP apps per device, counting misses. Usage:
 *   lru_replay FILE CAP [SLOTS]
 * SLOTS: the app hash table's size per device, a power of two above the apps a
 * device names (default 4096; scripts/bench-one-device.sh gives 32768 for its
 * 10,000 apps). The resident apps are a doubly linked list in recency order
 * (O(1) a request; the victim is its tail); a scan of the resident apps for the
 * oldest, as before, made a capacity of 1,000 cost 1,000 compares a miss.
 * Prints: rows devices misses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

typedef struct { char name[64]; int used; int resident; int prev, next; } App;
static App *apps;
static size_t SLOTS = 4096; /* app hash table per device (power of two) */

static uint64_t fnv(const char *s, size_t n) {
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: lru_replay FILE CAP [SLOTS]\n"); return 2; }
    FILE *f = fopen(argv[1], "r");
    if (!f) { perror(argv[1]); return 1; }
    int cap = atoi(argv[2]);
    if (argc > 3) SLOTS = (size_t)atol(argv[3]);
    if (SLOTS < 2 || (SLOTS & (SLOTS - 1))) { fprintf(stderr, "SLOTS: a power of two\n"); return 2; }
    if (cap < 1 || (size_t)cap >= SLOTS) { fprintf(stderr, "CAP: 1..SLOTS-1\n"); return 2; }
    apps = calloc(SLOTS, sizeof *apps);
    if (!apps) { perror("lru_replay"); return 1; }
    char line[1024], device[256] = "";
    long rows = 0, devices = 0, misses = 0;
    int resident = 0, head = -1, tail = -1; /* most and least recently used */
    double sum = 0;
    if (!fgets(line, sizeof line, f)) return 1; /* header */
    while (fgets(line, sizeof line, f)) {
        char *c1 = strchr(line, ','); if (!c1) continue;
        char *end;
        double t = strtod(c1 + 1, &end);
        char *app = end + 1;
        char *c3 = strchr(app, ','); if (!c3) continue;
        double d = strtod(c3 + 1, NULL);
        sum += t + d;
        size_t dn = (size_t)(c1 - line);
        if (dn != strlen(device) || memcmp(device, line, dn) != 0) {
            memcpy(device, line, dn); device[dn] = 0;
            memset(apps, 0, SLOTS * sizeof *apps); resident = 0; head = tail = -1; devices++;
        }
        size_t an = (size_t)(c3 - app);
        if (an > 63) an = 63;
        uint64_t h = fnv(app, an) & (SLOTS - 1);
        while (apps[h].used && (strlen(apps[h].name) != an || memcmp(apps[h].name, app, an))) h = (h + 1) & (SLOTS - 1);
        App *a = &apps[h];
        if (!a->used) { a->used = 1; memcpy(a->name, app, an); a->name[an] = 0; }
        int i = (int)h;
        if (a->resident) {
            if (head != i) { /* unlink, then to the front below */
                apps[a->prev].next = a->next;
                if (a->next >= 0) apps[a->next].prev = a->prev; else tail = a->prev;
            }
        } else {
            misses++;
            if (resident == cap) { /* evict the least recently used */
                int v = tail;
                tail = apps[v].prev;
                if (tail >= 0) apps[tail].next = -1; else head = -1;
                apps[v].resident = 0; resident--;
            }
            a->resident = 1; resident++;
        }
        if (head != i) {
            a->prev = -1; a->next = head;
            if (head >= 0) apps[head].prev = i; else tail = i;
            head = i;
        }
        rows++;
    }
    printf("%ld %ld %ld %.0f\n", rows, devices, misses, sum > 0 ? 0.0 : 1.0);
    return 0;
}
