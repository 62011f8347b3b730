/* test_sha256.c - SHA-256 against the FIPS 180-2 / NIST CSRC example vectors. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "sha256.h"

static void check_hex(const char *msg, const char *expect)
{
    char hex[65];
    sha256_buffer_hex(msg, strlen(msg), hex);
    assert_string_equal(hex, expect);
}

static void test_empty(void **state)
{
    (void)state;
    check_hex("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    char hex[65];
    sha256_buffer_hex(NULL, 0, hex);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static void test_abc(void **state)
{
    (void)state;
    check_hex("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void test_448_bits(void **state)
{
    (void)state;
    check_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void test_896_bits(void **state)
{
    (void)state;
    check_hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
              "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
              "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

/* One million 'a', fed in chunks of 1, 2, ..., 127 bytes cycling (never block-aligned). */
static void test_million_a_uneven_chunks(void **state)
{
    (void)state;
    static char a[1000];
    memset(a, 'a', sizeof a);
    sha256_ctx ctx;
    sha256_init(&ctx);
    size_t left = 1000000, chunk = 1;
    while (left > 0) {
        size_t n = chunk < left ? chunk : left;
        sha256_update(&ctx, a, n);
        left -= n;
        chunk = chunk % 127 + 1;
        if (chunk == 64)
            sha256_update(&ctx, NULL, 0);
    }
    uint8_t digest[32];
    char hex[65];
    sha256_final(&ctx, digest);
    sha256_hex(digest, hex);
    assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* Lengths around the padding boundaries (55/56 bytes: one or two final blocks). */
static void test_padding_boundaries(void **state)
{
    (void)state;
    static const struct {
        size_t n;
        const char *hex;
    } cases[] = {
        {55, "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072"},
        {56, "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e"},
        {57, "ae14a2563ccf969d99aca69ce6bb74981f734bbf9f655f73b8f06db68cab5217"},
        {63, "75220b47218278e656f2013bb8f0c455a25eaf01e86c64924e9d48d89776d6f2"},
        {64, "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c"},
        {65, "9537c5fdf120482f7d58d25e9ed583f52c02b4e304ea814db1633ad565aed7e9"},
        {119, "000b48d4edf0fa7bee3c6236ecd2785baa5db4eeb8bb54341b029e0d9fa5fb0c"},
        {120, "13f05a0b594787f5ecd315edc96141bd3243203d1b7d4f0836f37308b276ba98"},
    };
    char x[128], hex[65];
    memset(x, 'x', sizeof x);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sha256_buffer_hex(x, cases[i].n, hex);
        assert_string_equal(hex, cases[i].hex);
        /* the same bytes one at a time */
        sha256_ctx ctx;
        uint8_t digest[32];
        sha256_init(&ctx);
        for (size_t j = 0; j < cases[i].n; j++)
            sha256_update(&ctx, x + j, 1);
        sha256_final(&ctx, digest);
        sha256_hex(digest, hex);
        assert_string_equal(hex, cases[i].hex);
    }
}

static void test_hex_format(void **state)
{
    (void)state;
    uint8_t d[32];
    char hex[65];
    for (int i = 0; i < 32; i++)
        d[i] = (uint8_t)(i * 8 + 7);
    memset(hex, '#', sizeof hex);
    sha256_hex(d, hex);
    assert_int_equal(hex[64], '\0');
    assert_string_equal(hex, "070f171f272f373f474f575f676f777f878f979fa7afb7bfc7cfd7dfe7eff7ff");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_abc),
        cmocka_unit_test(test_448_bits),
        cmocka_unit_test(test_896_bits),
        cmocka_unit_test(test_million_a_uneven_chunks),
        cmocka_unit_test(test_padding_boundaries),
        cmocka_unit_test(test_hex_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
