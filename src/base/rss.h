/* rss.h — how much memory this process holds: its resident set now and the
 * most it has held so far (the VmRSS and VmHWM lines of /proc/self/status). */
#ifndef SEQREP_RSS_H
#define SEQREP_RSS_H

/* Resident set size of this process now, in KiB; -1 if unreadable. */
long rss_now_kib(void);

/* Peak resident set size of this process in bytes (VmHWM, else getrusage's
 * ru_maxrss); 0 if neither is readable. */
double rss_peak_bytes(void);

#endif
