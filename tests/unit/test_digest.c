/* test_digest.c - the inputs' digest (digest_formula.h), which the GPU computes too: any one
 * byte changed changes it, the key changes it, a partial last word is zero-padded, and words
 * may be added in any order (the GPU's blocks add theirs as they finish). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "digest_formula.h"

static void test_every_byte_counts(void **state)
{
    (void)state;
    unsigned char buf[37];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)(i * 29 + 3);
    uint64_t base = digest_host(buf, sizeof buf, 42);
    for (size_t i = 0; i < sizeof buf; i++)
        for (int bit = 0; bit < 8; bit++) {
            buf[i] ^= (unsigned char)(1u << bit);
            assert_true(digest_host(buf, sizeof buf, 42) != base);
            buf[i] ^= (unsigned char)(1u << bit);
        }
    assert_true(digest_host(buf, sizeof buf, 42) == base);
    assert_true(digest_host(buf, sizeof buf, 43) != base);
    /* swapping two words changes it: the index is mixed in */
    unsigned char sw[16];
    memcpy(sw, buf + 8, 8);
    memcpy(sw + 8, buf, 8);
    assert_true(digest_host(sw, 16, 42) != digest_host(buf, 16, 42));
}

static void test_tail_and_order(void **state)
{
    (void)state;
    unsigned char a[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 0, 0, 0};
    assert_true(digest_host(a, 13, 7) == digest_host(a, 16, 7)); /* zero-padded */
    assert_true(digest_host(a, 0, 7) == 0);
    uint64_t w0, w1;
    memcpy(&w0, a, 8);
    memcpy(&w1, a + 8, 8);
    assert_true(digest_term(7, 1, w1) + digest_term(7, 0, w0) == digest_host(a, 16, 7));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_byte_counts),
        cmocka_unit_test(test_tail_and_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
