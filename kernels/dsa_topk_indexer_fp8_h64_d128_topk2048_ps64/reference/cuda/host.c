/* host.c - the host code of this reference library, shared with the other device's: the true
 * scores, the check the definition chooses (kwb_check) and the generated K cache on the host
 * (kwb_generate_host). They live in the definition's kernel folder, an include folder of its
 * kwb.reference. */
#include "topk_scores.c"
#include "topk_check.c"
#include "topk_kcache.c"
