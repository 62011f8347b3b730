/* fuzz_skills.c - a skill playbook (front matter, fenced `kwb-direction` blocks, guidance):
 * skills_parse, then per direction what a round does with it: whether it applies, and the
 * reconnaissance (its keywords as one PCRE2 pattern searched in a folder with one source). */
#include <stdlib.h>

#include "fuzz_common.h"
#include "recon.h"
#include "skills.h"

static const char source[] = "/* vector state: split heads over warps */\n"
                             "for (int h = 0; h < HEADS; h++) state[h] *= gate;\n";

static void recon(const skill *s, const skill_direction *d)
{
    char **words;
    int n = recon_keywords(d, NULL, NULL, &words);
    const char *dirs[] = {fuzz_dir()};
    recon_limits lim = recon_limits_default();
    recon_result r;
    kwb_error err;
    if (recon_search(dirs, 1, words, n, &lim, &r, &err) == 0) {
        strbuf out;
        strbuf_init(&out);
        recon_format(&r, 2048, &out);
        strbuf_free(&out);
        recon_result_free(&r);
    }
    recon_words_free(words, n);
    (void)s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready) {
        fuzz_dir_file("k.c", source, sizeof source - 1);
        ready = 1;
    }
    skill s;
    kwb_error err;
    if (skills_parse((const char *)data, size, "fuzz.md", &s, &err) != 0)
        return 0;
    for (int i = 0; i < s.ndirs; i++) {
        (void)skills_applies(&s, &s.dirs[i], "gdn_decode_qk4_v8_d128_k_last", "memory", "small");
        recon(&s, &s.dirs[i]);
    }
    char **refs = NULL;
    int nrefs = 0;
    recon_skill_references(&s, &refs, &nrefs);
    recon_words_free(refs, nrefs);
    skills_free(&s);
    return 0;
}
