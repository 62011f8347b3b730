/* fuzz_skills.c - a skill playbook (front matter, fenced `kwb-direction` blocks, guidance):
 * skills_parse, then every direction asked whether it applies, as direction ranking does. */
#include "fuzz_common.h"
#include "skills.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    skill s;
    kwb_error err;
    if (skills_parse((const char *)data, size, "fuzz.md", &s, &err) != 0)
        return 0;
    for (int i = 0; i < s.ndirs; i++)
        (void)skills_applies(&s, &s.dirs[i], "gdn_decode_qk4_v8_d128_k_last", "memory", "small");
    skills_free(&s);
    return 0;
}
