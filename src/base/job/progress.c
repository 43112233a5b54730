/* progress.c — drawing the progress line. */
#include "base/job/progress.h"

#include <stdarg.h>
#include <time.h>
#include <unistd.h>

double progress_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void progress_start(Progress *p, FILE *out, int total, int every)
{
    p->out = out;
    p->total = total;
    p->every = every > 0 ? every : 1;
    p->is_tty = isatty(fileno(out));
    p->start = progress_now();
    p->last_draw = 0.0;
    p->tokens = 0;
    p->skipped = 0;
}

void progress_skip(Progress *p, int done)
{
    p->skipped = done > 0 ? done : 0;
}

void progress_note(Progress *p, const char *fmt, ...)
{
    if (p->is_tty) fputs("\r\033[K", p->out);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(p->out, fmt, ap);
    va_end(ap);
    fputc('\n', p->out);
    fflush(p->out);
    p->last_draw = 0.0; /* redraw the bar at the next update */
}

/* Format seconds as m:ss or h:mm:ss into buf. */
static void format_duration(char *buf, size_t n, double seconds)
{
    long s = (long)(seconds + 0.5);
    if (s >= 3600) snprintf(buf, n, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
    else snprintf(buf, n, "%ld:%02ld", s / 60, s % 60);
}

void progress_update(Progress *p, int step, float loss, float lr, long tokens)
{
    p->tokens += tokens;
    double now = progress_now(), elapsed = now - p->start;
    double tps = elapsed > 0 ? p->tokens / elapsed : 0.0;
    int run = step - p->skipped; /* steps of this job */
    double eta = run > 0 ? elapsed / run * (p->total - step) : 0.0;
    char eta_text[32];
    format_duration(eta_text, sizeof eta_text, eta);
    if (p->is_tty) {
        if (step != p->total && now - p->last_draw < 0.1) return;
        p->last_draw = now;
        int width = 24, filled = p->total > 0 ? (int)((long)width * step / p->total) : width;
        char bar[32];
        for (int i = 0; i < width; i++) bar[i] = i < filled ? '#' : '.';
        bar[width] = 0;
        fprintf(p->out, "\r[%s] step %d/%d  loss %.4f  lr %.2e  %.0f tok/s  ETA %s \033[K", bar,
                step, p->total, loss, lr, tps, eta_text);
        fflush(p->out);
    } else if (step % p->every == 0 || step == p->total || step == p->skipped + 1) {
        fprintf(p->out, "step %d/%d loss %.4f lr %.2e %.0f tok/s ETA %s\n", step, p->total, loss,
                lr, tps, eta_text);
        fflush(p->out);
    }
}

void progress_finish(Progress *p, float final_loss)
{
    double elapsed = progress_now() - p->start;
    char took[32];
    format_duration(took, sizeof took, elapsed);
    if (p->is_tty) fputc('\n', p->out);
    fprintf(p->out, "done: %d steps, final loss %.4f, %ld tokens in %s (%.0f tok/s)\n", p->total,
            final_loss, p->tokens, took, elapsed > 0 ? p->tokens / elapsed : 0.0);
}
