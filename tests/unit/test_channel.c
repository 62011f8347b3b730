/* test_channel.c - sealed event lines: a sealed line opens with its key and sequence number,
 * and a line without a tag, with a wrong key, altered, or out of sequence does not. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "channel.h"

static char *sealed(const char *key, unsigned long seq)
{
    json_t *ev = json_pack("{s:i, s:s, s:s}", "proto", 1, "event", "workload-end", "status", "PASSED");
    char *line = channel_seal(key, seq, ev);
    json_decref(ev);
    return line;
}

static void test_round_trip(void **state)
{
    (void)state;
    char key[CHANNEL_KEY_HEX + 1], other[CHANNEL_KEY_HEX + 1];
    assert_int_equal(channel_new_key(key), 0);
    assert_int_equal(channel_new_key(other), 0);
    assert_int_equal(strlen(key), CHANNEL_KEY_HEX);
    assert_string_not_equal(key, other);
    const char *why = NULL;
    char *line = sealed(key, 7);
    assert_int_equal(channel_open(key, 7, line, &why), 0);
    json_t *o = json_loads(line, 0, NULL); /* the tag is gone, the event intact */
    assert_non_null(o);
    assert_null(json_object_get(o, "tag"));
    assert_string_equal(json_string_value(json_object_get(o, "status")), "PASSED");
    json_decref(o);
    free(line);
}

static void test_forgeries(void **state)
{
    (void)state;
    char key[CHANNEL_KEY_HEX + 1], other[CHANNEL_KEY_HEX + 1];
    channel_new_key(key);
    channel_new_key(other);
    const char *why = NULL;
    char plain[] = "{\"proto\":1,\"event\":\"workload-end\",\"status\":\"PASSED\"}";
    assert_int_equal(channel_open(key, 0, plain, &why), -1);
    assert_non_null(strstr(why, "without the job's tag"));
    char *line = sealed(other, 0);
    assert_int_equal(channel_open(key, 0, line, &why), -1);
    assert_non_null(strstr(why, "wrong tag"));
    free(line);
    line = sealed(key, 0);
    char *p = strstr(line, "PASSED");
    memcpy(p, "FAILED", 6);
    assert_int_equal(channel_open(key, 0, line, &why), -1);
    free(line);
    line = sealed(key, 3);
    assert_int_equal(channel_open(key, 4, line, &why), -1);
    assert_non_null(strstr(why, "out of sequence"));
    free(line);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_forgeries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
