/* host.c - the host code of this reference library, shared with the other device's: the cost
 * model's values from a call's routing (kwb_cost_values). It lives in the definition's kernel
 * folder, an include folder of its kwb.reference. */
#include "moe_cost.c"
