/* peak_rss.h — the most resident memory this process has used so far. */
#ifndef SEQREP_PEAK_RSS_H
#define SEQREP_PEAK_RSS_H

/* Peak resident set size of this process in bytes (VmHWM of
 * /proc/self/status, else getrusage's ru_maxrss); 0 if neither is readable. */
double peak_rss_bytes(void);

#endif
