/* rss.h — how much memory this process holds: its resident set now and the
 * most it has held so far (the VmRSS and VmHWM lines of /proc/self/status);
 * and how much it may hold on this machine. */
#ifndef SEQREP_RSS_H
#define SEQREP_RSS_H

/* Resident set size of this process now, in KiB; -1 if unreadable. */
long rss_now_kib(void);

/* Peak resident set size of this process in bytes (VmHWM, else getrusage's
 * ru_maxrss); 0 if neither is readable. */
double rss_peak_bytes(void);

/* The memory this process may hold, in bytes: the machine's (physical
 * pages x page size), or less when a limit on the address space or the
 * data segment (ulimit -v, -d) is lower; *what names which: "the
 * machine's memory", "ulimit -v" or "ulimit -d". 0 when unknown. */
double memory_limit_bytes(const char **what);

/* The memory available for new allocations now (MemAvailable of
 * /proc/meminfo), in bytes; 0 when unknown. */
double memory_available_bytes(void);

#endif
