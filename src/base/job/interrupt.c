/* interrupt.c — signal handlers that leave no half-written file (see interrupt.h). */
#include "base/job/interrupt.h"

#include <string.h>

#include "base/atomic_file.h"

static const int SIGNALS[3] = {SIGINT, SIGTERM, SIGHUP};

static volatile sig_atomic_t held;     /* inside interrupt_hold ... interrupt_release */
static volatile sig_atomic_t pending;  /* a signal that came while held (0 = none) */
static volatile sig_atomic_t last;     /* the last signal acted on */
static volatile sig_atomic_t *notify_flag;

/* Remove the temporaries and die of sig (its default action). */
static void die_of(int sig)
{
    atomic_file_remove_temporaries();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
    raise(sig); /* delivered once this handler returns, if not at once */
}

/* The default handler: die of sig, or later when signals are held. */
static void on_signal(int sig)
{
    last = sig;
    if (held) pending = sig;
    else die_of(sig);
}

/* The notify handler: the first signal sets the flag, a second one is the default. */
static void on_signal_notify(int sig)
{
    if (notify_flag && !*notify_flag) {
        last = sig;
        *notify_flag = 1;
        return;
    }
    on_signal(sig);
}

/* Point SIGINT, SIGTERM and SIGHUP at handler; keep_ignored: leave a
 * signal that is ignored as it is. */
static void set_handlers(void (*handler)(int), int restart, int keep_ignored)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = restart ? SA_RESTART : 0;
    for (int i = 0; i < 3; i++) {
        if (keep_ignored && sigaction(SIGNALS[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        sigaction(SIGNALS[i], &sa, NULL);
    }
}

void interrupt_install(void)
{
    set_handlers(on_signal, 1, 1);
}

void interrupt_notify(volatile sig_atomic_t *flag, int restart)
{
    notify_flag = flag;
    set_handlers(on_signal_notify, restart, 0);
}

void interrupt_hold(void)
{
    held = 1;
}

void interrupt_release(void)
{
    held = 0;
    int sig = pending;
    if (sig) die_of(sig);
}

int interrupt_last_signal(void)
{
    return last;
}

const char *interrupt_signal_name(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "signal";
}
