/* test_secrets.c - API keys: the environment first, a key in a 0600 configuration file accepted,
 * the same file at 0644 refused with a message that names the file and its mode (and never the
 * key), and redaction of registered keys, environment keys and credential headers. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "agentcfg.h"
#include "secrets.h"
#include "testutil.h"

#define FILE_KEY "sk-file-0123456789abcdef"
#define ENV_KEY "sk-env-fedcba9876543210"

static int setup(void **state)
{
    unsetenv("OPENAI_API_KEY");
    unsetenv("ANTHROPIC_API_KEY");
    unsetenv("KWB_TEST_KEY");
    return testutil_tmpdir_setup(state, "/tmp/kwb-test-secrets-XXXXXX");
}

/* Loads agent NAME from DIR/agents.conf holding TEXT at MODE. */
static void load(const char *dir, const char *text, mode_t mode, const char *name, agent_config *c)
{
    char *path = testutil_path(dir, "agents.conf");
    testutil_write_text(path, text);
    assert_int_equal(chmod(path, mode), 0);
    kwb_error err = {{0}};
    if (agentcfg_load(path, name, c, &err) != 0)
        fail_msg("load: %s", err.msg);
    free(path);
}

static void test_env_key(void **state)
{
    agent_config c;
    load(*state, "set agent.openai.model m\n", 0644, "openai", &c);
    char key[256];
    kwb_error err = {{0}};
    assert_int_equal(secrets_api_key(&c, key, sizeof key, &err), 0);
    assert_string_equal(key, "");
    setenv("OPENAI_API_KEY", ENV_KEY, 1);
    assert_int_equal(secrets_api_key(&c, key, sizeof key, &err), 1);
    assert_string_equal(key, ENV_KEY);
    agentcfg_free(&c);
    /* a variable named in the configuration */
    setenv("KWB_TEST_KEY", "sk-named-variable-key", 1);
    load(*state, "set agent.anthropic.api_key_env KWB_TEST_KEY\n", 0644, "anthropic", &c);
    assert_int_equal(secrets_api_key(&c, key, sizeof key, &err), 1);
    assert_string_equal(key, "sk-named-variable-key");
    agentcfg_free(&c);
}

static void test_file_key_0600(void **state)
{
    agent_config c;
    load(*state, "set agent.openai.api_key " FILE_KEY "\n", 0600, "openai", &c);
    char key[256];
    kwb_error err = {{0}};
    assert_int_equal(secrets_api_key(&c, key, sizeof key, &err), 1);
    assert_string_equal(key, FILE_KEY);
    /* the environment wins over the file */
    setenv("OPENAI_API_KEY", ENV_KEY, 1);
    assert_int_equal(secrets_api_key(&c, key, sizeof key, &err), 1);
    assert_string_equal(key, ENV_KEY);
    agentcfg_free(&c);
}

static void test_file_key_0644_refused(void **state)
{
    agent_config c;
    /* loading registers the key for redaction, even though it will not be used */
    load(*state, "set agent.openai.api_key sk-only-in-a-file-4242\n", 0644, "openai", &c);
    char *clean = secrets_redact("x sk-only-in-a-file-4242 y");
    assert_string_equal(clean, "x [REDACTED] y");
    free(clean);
    agentcfg_free(&c);
    load(*state, "# keys\nset agent.openai.api_key " FILE_KEY "\n", 0644, "openai", &c);
    char key[256] = "x";
    kwb_error err = {{0}};
    assert_int_equal(secrets_api_key(&c, key, sizeof key, &err), -1);
    assert_string_equal(key, "");
    char *path = testutil_path(*state, "agents.conf");
    char want[4200];
    snprintf(want, sizeof want, "%s:2: holds an API key but the file is mode 0644", path);
    if (!strstr(err.msg, want))
        fail_msg("expected '%s' in: %s", want, err.msg);
    assert_non_null(strstr(err.msg, "chmod 600"));
    assert_null(strstr(err.msg, FILE_KEY));
    /* 0640 is refused too */
    assert_int_equal(chmod(path, 0640), 0);
    agentcfg_free(&c);
    load(*state, "set agent.openai.api_key " FILE_KEY "\n", 0640, "openai", &c);
    assert_int_equal(secrets_api_key(&c, key, sizeof key, &err), -1);
    assert_non_null(strstr(err.msg, "mode 0640"));
    agentcfg_free(&c);
    free(path);
}

static void test_redact(void **state)
{
    setenv("ANTHROPIC_API_KEY", ENV_KEY, 1);
    secrets_register(FILE_KEY);
    secrets_register("qZ7kW"); /* a short key is a key too (issue 19) */
    const char *text = "key " FILE_KEY " and " ENV_KEY "\n"
                       "Authorization: Bearer sk-unknown-but-in-a-header\n"
                       "X-Api-Key: another-header-key\n"
                       "short qZ7kW words stay";
    char *clean = secrets_redact(text);
    assert_string_equal(clean, "key [REDACTED] and [REDACTED]\n"
                               "Authorization: Bearer [REDACTED]\n"
                               "X-Api-Key: [REDACTED]\n"
                               "short [REDACTED] words stay");
    assert_int_equal(secrets_contains_key(clean), 0);
    assert_int_equal(secrets_contains_key(text), 1);
    free(clean);
    assert_null(secrets_redact(NULL));
    /* a key variable of any name read by another process: redacted by its name alone */
    setenv("MY_SERVICE_API_KEY", "custom-service-key-123456", 1);
    setenv("KWB_TEST_TOKEN", "tok-0123456789", 1);
    setenv("KWB_TEST_PLAIN", "not-a-secret-at-all", 1);
    clean = secrets_redact("a custom-service-key-123456 b tok-0123456789 c not-a-secret-at-all");
    assert_string_equal(clean, "a [REDACTED] b [REDACTED] c not-a-secret-at-all");
    free(clean);
    unsetenv("MY_SERVICE_API_KEY");
    unsetenv("KWB_TEST_TOKEN");
    unsetenv("KWB_TEST_PLAIN");
}

/* A key split between the pieces of a stream is caught: pieces of 1 to 7 bytes. */
static void test_stream(void **state)
{
    (void)state;
    secrets_register(FILE_KEY);
    const char *text = "a " FILE_KEY " b " FILE_KEY FILE_KEY " c";
    for (size_t piece = 1; piece < 8; piece++) {
        secrets_stream s;
        secrets_stream_init(&s);
        strbuf out;
        strbuf_init(&out);
        for (size_t i = 0; i < strlen(text); i += piece) {
            char *c = secrets_stream_feed(&s, text + i, strlen(text + i) < piece ? strlen(text + i) : piece);
            strbuf_puts(&out, c);
            free(c);
        }
        char *rest = secrets_stream_flush(&s);
        strbuf_puts(&out, rest);
        free(rest);
        assert_string_equal(out.s, "a [REDACTED] b [REDACTED][REDACTED] c");
        strbuf_free(&out);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_env_key, setup, testutil_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_file_key_0600, setup, testutil_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_file_key_0644_refused, setup, testutil_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_redact, setup, testutil_tmpdir_teardown),
        cmocka_unit_test(test_stream),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
