/* term.c - the curses front end (see term.h). */
#define _XOPEN_SOURCE_EXTENDED 1
#include "tui/term.h"
#include "tui/view.h"

#include <curses.h>
#include <term.h>
#include <fcntl.h>
#include <langinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <wchar.h>

#include "paths.h"
#include "xalloc.h"

static int active;
static SCREEN *screen;
static FILE *virt_out, *virt_in;
static int saved_stderr = -1;
static int stderr_file = -1; /* the nameless file stderr went to */
static attr_t class_attr[TC_COUNT];
static short class_pair[TC_COUNT];
static tui_cell *shown; /* what the terminal shows, for redrawing only changed rows */
static int shown_rows, shown_cols;
static volatile sig_atomic_t got_sigcont, got_quit;

int term_active(void)
{
    return active;
}

/* Stderr goes to a file that has no name from the start (made and unlinked at once): what
 * libraries and children write meanwhile is kept, and nothing is left behind when kwb is killed. */
static void stderr_to_file(void)
{
    const char *tmp = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/kwb-tui-stderr.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0)
        return;
    unlink(path);
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    fflush(stderr);
    saved_stderr = dup(2);
    dup2(fd, 2);
    stderr_file = fd;
}

static void stderr_back(void)
{
    if (saved_stderr < 0)
        return;
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    saved_stderr = -1;
    char buf[4096];
    ssize_t n;
    int first = 1;
    if (stderr_file >= 0 && lseek(stderr_file, 0, SEEK_SET) == 0)
        while ((n = read(stderr_file, buf, sizeof buf)) > 0) {
            if (first)
                fputs("kwb tui: what libraries and children wrote to stderr meanwhile:\n", stderr), first = 0;
            fwrite(buf, 1, (size_t)n, stderr);
        }
    if (stderr_file >= 0)
        close(stderr_file);
    stderr_file = -1;
}

void term_restore(void)
{
    if (!active)
        return;
    active = 0;
    if (!virt_out) {
        char *rmcup = tigetstr("rmcup");
        if (!rmcup || rmcup == (char *)-1) { /* no alternate screen (vt100): leave a clear one */
            erase();
            refresh();
        }
        endwin();
        stderr_back();
    } else {
        endwin();
        fclose(virt_out), fclose(virt_in);
        virt_out = virt_in = NULL;
    }
    if (screen)
        delscreen(screen);
    screen = NULL;
    free(shown);
    shown = NULL;
}

static void on_fatal(int sig)
{
    if (active && !virt_out) {
        endwin(); /* not async-signal-safe, but the process is dying: the terminal matters more */
        stderr_back();
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void on_quit(int sig)
{
    (void)sig;
    got_quit = 1;
}

static void on_cont(int sig)
{
    (void)sig;
    got_sigcont = 1;
}

int term_take_sigcont(void)
{
    int v = got_sigcont;
    got_sigcont = 0;
    return v;
}

int term_quit_requested(void)
{
    return got_quit;
}

static void install_handlers(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    atexit(term_restore);
    int fatal[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
        signal(fatal[i], on_fatal);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_quit;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sa.sa_handler = on_cont;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGCONT, &sa, NULL);
}

static int colour_tier(tui_app *a)
{
    const char *nc = getenv("NO_COLOR");
    int mono = a->opt.no_color || (nc && *nc) || !has_colors();
    if (mono)
        return 0;
    start_color();
    use_default_colors();
    return COLORS;
}

/* The curses attribute of each class from the theme, downgraded to the terminal's colours. */
static void map_classes(tui_app *a, int colors)
{
    short next_pair = 1;
    for (int c = 0; c < TC_COUNT; c++) {
        theme_style st = a->th.style[c];
        attr_t at = 0;
        if (st.attrs & TA_BOLD)
            at |= A_BOLD;
        if (st.attrs & TA_DIM)
            at |= A_DIM;
        if (st.attrs & TA_REVERSE)
            at |= A_REVERSE;
        if (st.attrs & TA_UNDERLINE)
            at |= A_UNDERLINE;
        if (st.attrs & TA_STANDOUT)
            at |= A_STANDOUT;
#ifdef A_ITALIC
        if (st.attrs & TA_ITALIC)
            at |= A_ITALIC;
#endif
        class_pair[c] = 0;
        if (colors > 0 && (st.fg >= 0 || st.bg >= 0)) {
            int b1, b2;
            short fg = theme_downgrade(st.fg, colors, &b1), bg = theme_downgrade(st.bg, colors, &b2);
            if (fg == bg && fg >= 0)
                fg = (short)(fg == 0 ? 7 : 0); /* never invisible text */
            if (b1)
                at |= A_BOLD;
            for (int k = 0; k < c && !class_pair[c]; k++) { /* reuse an identical pair */
                short f2, b3;
                if (class_pair[k] && pair_content(class_pair[k], &f2, &b3) == OK && f2 == fg && b3 == bg)
                    class_pair[c] = class_pair[k];
            }
            if (!class_pair[c] && next_pair < COLOR_PAIRS) {
                init_pair(next_pair, fg, bg);
                class_pair[c] = next_pair++;
            }
        }
        class_attr[c] = at;
    }
}

static void choose_glyphs(tui_app *a)
{
    const char *term = getenv("TERM");
    int utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
    /* DEC's terminals and their emulations (vt100, vt220, ...) and ansi draw no UTF-8 */
    int ascii_term = term && (strcmp(term, "dumb") == 0 || strncmp(term, "vt", 2) == 0 || strcmp(term, "ansi") == 0);
    if (strcmp(a->cfg.line_graphics, "ascii") == 0 || (ascii_term && strcmp(a->cfg.line_graphics, "auto") == 0))
        utf8 = 0;
    else if (strcmp(a->cfg.line_graphics, "utf-8") == 0)
        utf8 = 1;
    a->scr.g = tui_glyphs_for(utf8);
}

/* Mouse, theme, colour overrides and class colours from a->cfg (at start and after :set). */
static void apply_looks(tui_app *a)
{
    mousemask(a->cfg.mouse ? ALL_MOUSE_EVENTS | REPORT_MOUSE_POSITION : 0, NULL);
    int colors = colour_tier(a);
    kwb_error err = {{0}};
    char *dir = paths_themes();
    if (theme_pick(dir, a->cfg.theme, colors, colors == 0, &a->th, &err) != 0)
        app_log(a, TC_LOG_ERROR, "theme: %s", err.msg);
    free(dir);
    if (colors > 0)
        config_apply_colors(&a->cfg, &a->th);
    map_classes(a, colors);
    app_log(a, TC_LOG_INFO, "theme %s (%d colours), %s line graphics, mouse %s", a->th.name, colors,
            a->scr.g.vline == '|' ? "ASCII" : "UTF-8", a->cfg.mouse ? "on" : "off");
}

void term_apply_config(tui_app *a)
{
    choose_glyphs(a);
    if (active && !virt_out) {
        apply_looks(a);
        free(shown); /* every row is drawn again in the new looks */
        shown = NULL;
    }
    view_mark_all(a, 1);
}

static void setup_screen(tui_app *a)
{
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    leaveok(stdscr, TRUE);
    curs_set(0);
#ifdef NCURSES_VERSION
    set_escdelay(25);
#endif
    apply_looks(a);
    surface_resize(&a->scr, LINES, COLS);
    view_mark_all(a, 1);
}

int term_init(tui_app *a, kwb_error *err)
{
    install_handlers();
    choose_glyphs(a);
    stderr_to_file();
    screen = newterm(NULL, stdout, stdin);
    if (!screen) {
        stderr_back();
        return kwb_error_set(err, "cannot start the terminal (TERM=%s)", getenv("TERM") ? getenv("TERM") : "");
    }
    set_term(screen);
    char *cup = tigetstr("cup");
    if (!cup || cup == (char *)-1) { /* dumb and its like: no cursor addressing, no full screen */
        endwin();
        delscreen(screen);
        screen = NULL;
        stderr_back();
        return kwb_error_set(err,
                             "cannot run full screen on TERM=%s (no cursor addressing); use a terminal "
                             "such as xterm-256color, or kwb run for rounds without one",
                             getenv("TERM") ? getenv("TERM") : "");
    }
    active = 1;
    setup_screen(a);
    return 0;
}

int term_init_virtual(tui_app *a, int rows, int cols)
{
    install_handlers();
    virt_out = fopen("/dev/null", "w");
    virt_in = fopen("/dev/null", "r");
    const char *term = getenv("TERM");
    screen = newterm(term && *term && strcmp(term, "dumb") ? term : "xterm-256color", virt_out, virt_in);
    if (!screen) {
        fclose(virt_out), fclose(virt_in);
        virt_out = virt_in = NULL;
        return -1;
    }
    set_term(screen);
    active = 1;
    resizeterm(rows, cols);
    tui_glyphs g = a->scr.g;
    setup_screen(a);
    a->scr.g = g;
    surface_resize(&a->scr, rows, cols);
    return 0;
}

void term_suspend(void)
{
    if (!active || virt_out)
        return;
    def_prog_mode();
    endwin();
    if (saved_stderr >= 0)
        dup2(saved_stderr, 2);
}

void term_resume(void)
{
    if (!active || virt_out)
        return;
    if (stderr_file >= 0)
        dup2(stderr_file, 2);
    reset_prog_mode();
    refresh();
}

void term_resize(tui_app *a)
{
    if (active && !virt_out) {
        struct winsize ws;
        if (ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && (ws.ws_row != LINES || ws.ws_col != COLS))
            resizeterm(ws.ws_row, ws.ws_col);
    }
    if (active)
        surface_resize(&a->scr, LINES, COLS);
    view_mark_all(a, 1);
}

static void put_row(const surface *s, int y)
{
    const tui_cell *row = s->cells + y * s->cols;
    wchar_t buf[1024];
    for (int x = 0; x < s->cols;) {
        int cls = row[x].cls, n = 0, x0 = x;
        while (x < s->cols && row[x].cls == cls && n < 1023) {
            if (row[x].ch != 0)
                buf[n++] = (wchar_t)row[x].ch;
            x++;
        }
        buf[n] = 0;
        attr_set(class_attr[cls], class_pair[cls], NULL);
        mvaddnwstr(y, x0, buf, n);
    }
}

void term_flush(tui_app *a)
{
    if (!active)
        return;
    surface *s = &a->scr;
    if (shown_rows != s->rows || shown_cols != s->cols || !shown) {
        free(shown);
        shown = xcalloc((size_t)s->rows * (size_t)s->cols, sizeof *shown);
        shown_rows = s->rows, shown_cols = s->cols;
        a->full_redraw = 1;
    }
    if (a->full_redraw) {
        clearok(curscr, TRUE);
        erase();
    }
    size_t rowbytes = (size_t)s->cols * sizeof *shown;
    for (int y = 0; y < s->rows; y++) {
        tui_cell *now = s->cells + y * s->cols, *was = shown + y * s->cols;
        if (!a->full_redraw && memcmp(now, was, rowbytes) == 0)
            continue;
        put_row(s, y);
        memcpy(was, now, rowbytes);
    }
    a->full_redraw = 0;
    wnoutrefresh(stdscr);
    doupdate();
}

int term_read_key(void)
{
    wint_t ch;
    int rc = wget_wch(stdscr, &ch);
    if (rc == ERR)
        return -1;
    if (rc == KEY_CODE_YES)
        return (int)ch;
    if (ch == '\r')
        return TUI_KEY_ENTER;
    if (ch == 127 || ch == 8)
        return KEY_BACKSPACE;
    return (int)ch;
}
