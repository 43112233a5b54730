/* interrupt.h — what SIGINT, SIGTERM and SIGHUP do to a seqrep command.
 *
 * By default (interrupt_install, which main calls for every command) such a
 * signal removes the temporaries of the atomic files still being written
 * (base/atomic_file.h) and the process then dies of it as it would have:
 * nothing half-written is left behind, and what was there before stays. A
 * signal the process was started with ignored (nohup, a background job of a
 * script) stays ignored.
 *
 * A command that can stop cleanly asks to be told instead (interrupt_notify):
 * the first signal sets a flag the command polls, a second one acts as the
 * default. And a command that writes files belonging together holds signals
 * off meanwhile (interrupt_hold ... interrupt_release): a signal that comes
 * in between acts at the release, so the files are all old or all new. */
#ifndef SEQREP_INTERRUPT_H
#define SEQREP_INTERRUPT_H

#include <signal.h>

/* Install the default: remove the temporaries, then die of the signal. */
void interrupt_install(void);

/* From now on the first SIGINT, SIGTERM or SIGHUP sets *flag (even if it was
 * ignored); restart = 1 restarts the system calls it interrupts, 0 lets them
 * fail with EINTR (for a wait that must notice it). */
void interrupt_notify(volatile sig_atomic_t *flag, int restart);

/* Hold signals off until interrupt_release, which then acts on the last one
 * that came (if any) as the default or the notify flag would have. */
void interrupt_hold(void);
void interrupt_release(void);

/* The signal number that stopped or set the flag last (0 = none), and its
 * name ("SIGINT", ...; "signal" for another). */
int interrupt_last_signal(void);
const char *interrupt_signal_name(int sig);

#endif
