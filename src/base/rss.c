/* rss.c — resident memory of this process (see rss.h). */
#include "base/rss.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

/* The KiB value of the line starting with key ("VmRSS:") of
 * /proc/self/status; -1 if there is none. */
static long proc_status_kib(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    long kib = -1;
    size_t n = strlen(key);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, n) == 0 && sscanf(line + n, "%ld", &kib) == 1) break;
    fclose(f);
    return kib;
}

long rss_now_kib(void) { return proc_status_kib("VmRSS:"); }

double rss_peak_bytes(void)
{
    long kib = proc_status_kib("VmHWM:");
    if (kib >= 0) return 1024.0 * (double)kib;
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) == 0) return 1024.0 * (double)usage.ru_maxrss;
    return 0.0;
}
