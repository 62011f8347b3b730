/* test_prompt.c - prompts: parts under their budgets with a visible head+tail marker, every part
 * present under its heading, the editable files and the edit format in the system prompt, the
 * retry turn quoting the failure report. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prompt.h"

static void test_clip(void **state)
{
    (void)state;
    strbuf out;
    strbuf_init(&out);
    prompt_clip("short\n", 100, &out);
    assert_string_equal(out.s, "short\n");
    strbuf_free(&out);

    strbuf big;
    strbuf_init(&big);
    for (int i = 0; i < 1000; i++)
        strbuf_printf(&big, "line %04d of the long part\n", i);
    strbuf_init(&out);
    prompt_clip(big.s, 2000, &out);
    assert_true(out.len < 2100);
    assert_true(out.len > 1700);
    assert_non_null(strstr(out.s, "line 0000 of"));                 /* head kept */
    assert_non_null(strstr(out.s, "line 0999 of the long part\n")); /* tail kept */
    const char *m = strstr(out.s, "[... ");
    assert_non_null(m);
    assert_non_null(strstr(m, " bytes ("));
    assert_non_null(strstr(m, " lines) cut by kwb ...]\n"));
    assert_true(m[-1] == '\n'); /* cut at a line end */
    assert_null(strstr(out.s, "line 0500 of"));
    strbuf_free(&out);
    strbuf_free(&big);
}

static void test_prompt_parts(void **state)
{
    (void)state;
    solution_source src[2] = {{"k.c", "int kwb_entry(void) { return 0; }\n", 35}, {"k.h", "#define LANES 8\n", 16}};
    solution k = {.language = "c", .sources = src, .nsources = 2};
    const char *scope[] = {"*.cuh"};
    strbuf att;
    strbuf_init(&att);
    for (int i = 0; i < 400; i++)
        strbuf_printf(&att, "round %d: tune.X=%d rejected: slower on 3 of 7 workloads\n", i, i);
    prompt_parts p = {.direction_id = "gdn.vector-state",
                      .direction_title = "Vectorized state loads",
                      .rationale = "memory-bound at batch 64",
                      .predicted = "up to 1.8x",
                      .guidance = "Move the state in float4 accesses.",
                      .definition_json = "{\"name\": \"gdn\", \"reference\": \"def run(q): ...\"}",
                      .kernel = &k,
                      .scope = scope,
                      .nscope = 1,
                      .context = "batch 64: 0.31 ms, roofline 42%, memory-bound",
                      .attempts = att.s,
                      .recon = "refs/a.cu:12:\n>   12| float4 v = s[i];\n"};
    strbuf sys, user;
    strbuf_init(&sys);
    strbuf_init(&user);
    prompt_system(&p, &sys);
    assert_non_null(strstr(sys.s,
                           "Edit only these files (paths relative to the solution folder): k.c k.h; new files only "
                           "where the direction's scope allows: *.cuh."));
    assert_non_null(strstr(sys.s, "<<<<<<< SEARCH\n"));
    assert_non_null(strstr(sys.s, ">>>>>>> REPLACE\n"));
    prompt_budget b = prompt_budget_default();
    b.attempts = 1000;
    prompt_user(&p, &b, &user);
    const char *want[] = {"# Direction gdn.vector-state: Vectorized state loads\n",
                          "Why this direction: memory-bound at batch 64\n",
                          "Predicted effect: up to 1.8x\n",
                          "## Guidance (the skill's playbook for this direction)\n\nMove the state in float4",
                          "## Measurements of the current best",
                          "batch 64: 0.31 ms, roofline 42%, memory-bound",
                          "## Previous attempts in this session\n\nround 0: tune.X=0",
                          "round 399: tune.X=399 rejected",
                          "cut by kwb ...]",
                          "## Reference code found for this direction",
                          "\"reference\": \"def run(q): ...\"",
                          "\nk.c\n```c k.c\nint kwb_entry(void) { return 0; }\n```\n",
                          "\nk.h\n```c k.h\n#define LANES 8\n```\n",
                          NULL};
    for (int i = 0; want[i]; i++)
        if (!strstr(user.s, want[i]))
            fail_msg("no '%s' in the prompt:\n%s", want[i], user.s);
    assert_null(strstr(user.s, "round 200: "));
    strbuf_free(&sys);
    strbuf_free(&user);
    strbuf_free(&att);
}

static void test_retry(void **state)
{
    (void)state;
    strbuf out;
    strbuf_init(&out);
    prompt_retry("block 1 (k.c, reply line 3): no match\n  closest lines in k.c (lines 4-5):\n", &out);
    assert_non_null(strstr(out.s, "nothing was changed"));
    assert_non_null(strstr(out.s, "block 1 (k.c, reply line 3): no match\n"));
    assert_non_null(strstr(out.s, "Send the complete edit again"));
    strbuf_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clip),
        cmocka_unit_test(test_prompt_parts),
        cmocka_unit_test(test_retry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
