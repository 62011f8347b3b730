/* test_llm_config.c - the agents' configuration: `set` lines and JSON give the same settings,
 * an agent's own keys win over the agent.* defaults, prices and the command's words are parsed,
 * unknown keys are kept for other modules, and bad values are refused with FILE:LINE. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agentcfg.h"
#include "strbuf.h"
#include "llm.h"
#include "testutil.h"

static int setup(void **state)
{
    return testutil_tmpdir_setup(state, "/tmp/kwb-test-llmcfg-XXXXXX");
}

static const char *lines = "# agents\n"
                           "set agent.stall_timeout 30\n"
                           "set agent.model generic-model\n"
                           "set agent.local.base_url http://127.0.0.1:8080/v1\n"
                           "set agent.proxy.base_url http://127.0.0.1:9000\n"
                           "set agent.proxy.provider anthropic\n"
                           "set agent.openai.model gpt-x\n"
                           "set agent.openai.reasoning yes\n"
                           "set agent.openai.reasoning_effort high\n"
                           "set agent.openai.max_tokens 16000\n"
                           "set agent.openai.stream_usage no\n"
                           "set agent.price gpt-x 2.5 10\n"
                           "set agent.openai.price other 1 2\n"
                           "set agent.budget_usd 3.5\n"
                           "set agent.references /src/cutlass /src/flashinfer\n"
                           "set agent.openai.references /src/mine\n"
                           "set agent.command.command codex exec \"--sandbox\" 'workspace write' -\n"
                           "  set   agent.anthropic.temperature   0.2  \n";

static void check_openai(const agent_config *c)
{
    assert_string_equal(c->provider, "openai");
    assert_string_equal(c->base_url, "https://api.openai.com/v1");
    assert_string_equal(c->model, "gpt-x");
    assert_int_equal(c->reasoning, 1);
    assert_string_equal(c->reasoning_effort, "high");
    assert_int_equal(c->max_tokens, 16000);
    assert_true(c->stall_timeout_s == 30);
    assert_true(c->budget_usd == 3.5);
    assert_int_equal(c->nprices, 2);
    const agent_price *p = agentcfg_price(c, "gpt-x");
    assert_non_null(p);
    assert_true(p->in_per_mtok == 2.5 && p->out_per_mtok == 10);
    assert_null(agentcfg_price(c, "nope"));
    assert_string_equal(agentcfg_value(c, "references"), "/src/mine");
    assert_true(c->temperature < 0);
    assert_int_equal(c->stream_usage, 0);
    /* one million tokens in, half a million out */
    int priced;
    assert_true(llm_cost(c, "gpt-x", 1000000, 500000, &priced) == 7.5);
    assert_int_equal(priced, 1);
}

static void test_lines(void **state)
{
    char *path = testutil_path(*state, "agents.conf");
    testutil_write_text(path, lines);
    agent_config c;
    kwb_error err = {{0}};
    assert_int_equal(agentcfg_load(path, "openai", &c, &err), 0);
    check_openai(&c);
    agentcfg_free(&c);

    assert_int_equal(agentcfg_load(path, "anthropic", &c, &err), 0);
    assert_string_equal(c.provider, "anthropic");
    assert_string_equal(c.base_url, "https://api.anthropic.com");
    assert_string_equal(c.api_key_env, "ANTHROPIC_API_KEY");
    assert_string_equal(c.model, "generic-model");
    assert_true(c.temperature == 0.2);
    assert_string_equal(agentcfg_value(&c, "references"), "/src/cutlass /src/flashinfer");
    agentcfg_free(&c);

    assert_int_equal(agentcfg_load(path, "local", &c, &err), 0);
    assert_string_equal(c.provider, "openai");
    assert_string_equal(c.base_url, "http://127.0.0.1:8080/v1");
    agentcfg_free(&c);

    /* a provider set after the address keeps the address, and brings its key variable */
    assert_int_equal(agentcfg_load(path, "proxy", &c, &err), 0);
    assert_string_equal(c.provider, "anthropic");
    assert_string_equal(c.base_url, "http://127.0.0.1:9000");
    assert_string_equal(c.api_key_env, "ANTHROPIC_API_KEY");
    agentcfg_free(&c);

    assert_int_equal(agentcfg_load(path, "command", &c, &err), 0);
    assert_string_equal(c.provider, "command");
    assert_int_equal(c.command_argc, 5);
    assert_string_equal(c.command_args[0], "codex");
    assert_string_equal(c.command_args[2], "--sandbox");
    assert_string_equal(c.command_args[3], "workspace write");
    assert_string_equal(c.command_args[4], "-");
    agentcfg_free(&c);
    free(path);
}

static void test_json(void **state)
{
    char *path = testutil_path(*state, "agents.json");
    testutil_write_text(path,
                        "{\"agent\": {\"stall_timeout\": 30, \"model\": \"generic-model\", \"budget_usd\": 3.5,\n"
                        " \"prices\": {\"gpt-x\": [2.5, 10]},\n"
                        " \"openai\": {\"model\": \"gpt-x\", \"reasoning\": true, \"reasoning_effort\": \"high\",\n"
                        "   \"max_tokens\": 16000, \"stream_usage\": false, \"prices\": {\"other\": [1, 2]}, "
                        "\"references\": \"/src/mine\"},\n"
                        " \"command\": {\"command\": [\"codex\", \"exec\", \"say \\\"hi\\\"\"]}}}\n");
    agent_config c;
    kwb_error err = {{0}};
    assert_int_equal(agentcfg_load(path, "openai", &c, &err), 0);
    check_openai(&c);
    agentcfg_free(&c);
    assert_int_equal(agentcfg_load(path, "command", &c, &err), 0);
    assert_int_equal(c.command_argc, 3);
    assert_string_equal(c.command_args[2], "say \"hi\"");
    agentcfg_free(&c);
    free(path);
}

static void expect_refused(const char *dir, const char *text, const char *want)
{
    char *path = testutil_path(dir, "bad.conf");
    testutil_write_text(path, text);
    agent_config c;
    kwb_error err = {{0}};
    assert_int_equal(agentcfg_load(path, "openai", &c, &err), -1);
    if (!strstr(err.msg, want) || !strstr(err.msg, path))
        fail_msg("expected '%s' in: %s", want, err.msg);
    free(path);
}

static void test_bad_values(void **state)
{
    expect_refused(*state, "set agent.openai.max_tokens many\n", "bad.conf:1: agent.openai.max_tokens");
    expect_refused(*state, "\nset agent.reasoning maybe\n", "bad.conf:2: agent.reasoning: expected yes or no");
    expect_refused(*state, "set agent.price gpt-x 2.5\n", "price: expected 'MODEL INPUT OUTPUT'");
    expect_refused(*state, "agent.model x\n", "bad.conf:1: expected 'set KEY VALUE'");
    expect_refused(*state, "set agent.provider grpc\n", "expected openai, anthropic or command");
    expect_refused(*state, "set agent.openai.command \"unterminated\n", "bad.conf:1: command: unterminated \" quote");
    expect_refused(*state, "{\"agent\": [1]}\n", "expected {\"agent\"");
    agent_config c;
    kwb_error err = {{0}};
    assert_int_equal(agentcfg_load("/nonexistent/agents.conf", "openai", &c, &err), -1);
    assert_non_null(strstr(err.msg, "/nonexistent/agents.conf"));
}

/* Issue 19 items 6 and 10: semantic errors of the JSON form name FILE:LINE; a value nested 30
 * deep (objects or arrays) is refused at once, with its line; a UTF-8 byte-order mark is read. */
static void test_json_lines_depth_bom(void **state)
{
    expect_refused(*state, "{\"agent\": {\n \"openai\": {\n  \"max_tokens\": \"many\"}}}\n",
                   "bad.conf:3: agent.openai.max_tokens");
    expect_refused(*state, "{\"agent\": {\n\n \"reasoning\": \"maybe\"}}\n",
                   "bad.conf:3: agent.reasoning: expected yes");
    expect_refused(*state, "{\"agent\": {\"openai\": {\n \"prices\": {\"m\": [1]}}}}\n",
                   "bad.conf:2: agent.openai.prices.m");
    strbuf deep;
    strbuf_init(&deep);
    strbuf_puts(&deep, "{\"agent\": {\n\"x\": ");
    for (int i = 0; i < 30; i++)
        strbuf_puts(&deep, "{\"a\": ");
    strbuf_puts(&deep, "1");
    for (int i = 0; i < 30; i++)
        strbuf_puts(&deep, "}");
    strbuf_puts(&deep, "}}\n");
    expect_refused(*state, deep.s, "bad.conf:2: agent.x.a.a.a: objects nested deeper than 4 levels");
    strbuf_free(&deep);
    strbuf_init(&deep);
    strbuf_puts(&deep, "{\"agent\": {\n\"references\": ");
    for (int i = 0; i < 30; i++)
        strbuf_puts(&deep, "[\"a\", ");
    strbuf_puts(&deep, "\"b\"");
    for (int i = 0; i < 30; i++)
        strbuf_puts(&deep, "]");
    strbuf_puts(&deep, "}}\n");
    expect_refused(*state, deep.s, "bad.conf:2: agent.references: unsupported value");
    strbuf_free(&deep);
    char *path = testutil_path(*state, "bom.conf");
    testutil_write_text(path, "\xEF\xBB\xBFset agent.openai.model bom-model\n");
    agent_config c;
    kwb_error err = {{0}};
    assert_int_equal(agentcfg_load(path, "openai", &c, &err), 0);
    assert_string_equal(c.model, "bom-model");
    agentcfg_free(&c);
    testutil_write_text(path, "\xEF\xBB\xBF{\"agent\": {\"openai\": {\"model\": \"bom-json\"}}}\n");
    assert_int_equal(agentcfg_load(path, "openai", &c, &err), 0);
    assert_string_equal(c.model, "bom-json");
    agentcfg_free(&c);
    free(path);
}

static void test_default_file(void **state)
{
    char buf[4096];
    unsetenv("KWB_AGENT_CONFIG");
    setenv("XDG_CONFIG_HOME", "/xdg", 1);
    assert_string_equal(agentcfg_default_path(buf, sizeof buf), "/xdg/kwb/agents.conf");
    unsetenv("XDG_CONFIG_HOME");
    char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    setenv("HOME", "/home/u", 1);
    assert_string_equal(agentcfg_default_path(buf, sizeof buf), "/home/u/.config/kwb/agents.conf");
    if (home)
        setenv("HOME", home, 1);
    free(home);
    /* no file: the defaults */
    char *path = testutil_path(*state, "agents.conf");
    setenv("KWB_AGENT_CONFIG", path, 1);
    agent_config c;
    kwb_error err = {{0}};
    assert_int_equal(agentcfg_load_default("anthropic", &c, &err), 0);
    assert_string_equal(c.base_url, "https://api.anthropic.com");
    assert_string_equal(c.path, "");
    agentcfg_free(&c);
    testutil_write_text(path, "set agent.anthropic.model claude-test\n");
    assert_int_equal(agentcfg_load_default("anthropic", &c, &err), 0);
    assert_string_equal(c.model, "claude-test");
    assert_string_equal(c.path, path);
    agentcfg_free(&c);
    /* a command-line style override on top */
    assert_int_equal(agentcfg_set(&c, "agent.anthropic.max_tokens", "77", "--set", &err), 0);
    assert_int_equal(c.max_tokens, 77);
    assert_int_equal(agentcfg_set(&c, "agent.openai.max_tokens", "99", "--set", &err), 0); /* another agent's */
    assert_int_equal(c.max_tokens, 77);
    assert_int_equal(agentcfg_set(&c, "agent.max_tokens", "x", "--set", &err), -1);
    assert_non_null(strstr(err.msg, "--set: agent.max_tokens"));
    unsetenv("KWB_AGENT_CONFIG");
    free(path);
}

static void test_budget(void **state)
{
    agent_config c;
    agentcfg_defaults(&c, "openai");
    kwb_error err = {{0}};
    assert_int_equal(llm_budget_exceeded(1.0, 0), 0);
    assert_int_equal(llm_budget_exceeded(0.99, 1.0), 0);
    assert_int_equal(llm_budget_exceeded(1.0, 1.0), 1);
    assert_int_equal(llm_session_budget_check(&c, 100, 1000000, &err), 0);
    c.budget_usd = 2;
    assert_int_equal(llm_session_budget_check(&c, 2.01, 0, &err), 1);
    assert_non_null(strstr(err.msg, "budget reached: $2.0100 spent of $2.00"));
    c.budget_usd = 0;
    c.budget_tokens = 1000;
    assert_int_equal(llm_session_budget_check(&c, 0, 999, &err), 0);
    assert_int_equal(llm_session_budget_check(&c, 0, 1000, &err), 1);
    assert_non_null(strstr(err.msg, "1000 tokens of 1000"));
    /* an unknown model costs nothing and says so */
    int priced = 1;
    assert_true(llm_cost(&c, "unpriced", 1000, 1000, &priced) == 0.0);
    assert_int_equal(priced, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_lines, setup, testutil_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_json, setup, testutil_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_bad_values, setup, testutil_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_default_file, setup, testutil_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_json_lines_depth_bom, setup, testutil_tmpdir_teardown),
        cmocka_unit_test(test_budget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
