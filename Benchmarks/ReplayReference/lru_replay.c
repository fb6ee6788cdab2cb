/* The reference for jetsim's replay speed (a benchmark, not part of jetsim): reads
 * a usage CSV (device,time_s,app,duration_s; plain, no quoting) with fgets/strtod
 * and runs an LRU cache of CAP apps per device, counting misses. Usage:
 *   lru_replay FILE CAP
 * Prints: rows devices misses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#define SLOTS 4096 /* app hash table per device (power of two) */
typedef struct { char name[64]; int used; uint64_t last; int resident; } App;
static App apps[SLOTS];

static uint64_t fnv(const char *s, size_t n) {
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: lru_replay FILE CAP\n"); return 2; }
    FILE *f = fopen(argv[1], "r");
    if (!f) { perror(argv[1]); return 1; }
    int cap = atoi(argv[2]);
    if (cap < 1 || cap > 256) { fprintf(stderr, "CAP: 1..256\n"); return 2; }
    char line[1024], device[256] = "";
    long rows = 0, devices = 0, misses = 0;
    int resident = 0;
    int res[256]; /* the resident apps' slots (CAP <= 256) */
    uint64_t clock = 0;
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
            memset(apps, 0, sizeof apps); resident = 0; devices++;
        }
        size_t an = (size_t)(c3 - app);
        if (an > 63) an = 63;
        uint64_t h = fnv(app, an) & (SLOTS - 1);
        while (apps[h].used && (strlen(apps[h].name) != an || memcmp(apps[h].name, app, an))) h = (h + 1) & (SLOTS - 1);
        App *a = &apps[h];
        if (!a->used) { a->used = 1; memcpy(a->name, app, an); a->name[an] = 0; }
        if (!a->resident) {
            misses++;
            if (resident == cap) { /* evict the least recently used of the CAP resident */
                int vi = 0;
                for (int i = 1; i < resident; i++) if (apps[res[i]].last < apps[res[vi]].last) vi = i;
                apps[res[vi]].resident = 0;
                res[vi] = res[--resident];
            }
            a->resident = 1; res[resident++] = (int)h;
        }
        a->last = ++clock;
        rows++;
    }
    printf("%ld %ld %ld %.0f\n", rows, devices, misses, sum > 0 ? 0.0 : 1.0);
    return 0;
}
