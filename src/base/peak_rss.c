/* peak_rss.c — peak resident memory of this process (see peak_rss.h). */
#include "base/peak_rss.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

double peak_rss_bytes(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (f) {
        char line[256];
        long kib = -1;
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "VmHWM:", 6) == 0 && sscanf(line + 6, "%ld", &kib) == 1) break;
        fclose(f);
        if (kib >= 0) return 1024.0 * (double)kib;
    }
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) == 0) return 1024.0 * (double)usage.ru_maxrss;
    return 0.0;
}
