/* fuzz_agentcfg.c - an agents.conf file (`set agent.[NAME.]KEY VALUE` lines, or JSON):
 * agentcfg_load for the agent "openai"; a key it read is then redacted from the input. */
#include <stdlib.h>

#include "agentcfg.h"
#include "fuzz_common.h"
#include "secrets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    agent_config cfg;
    kwb_error err;
    if (agentcfg_load(fuzz_file(data, size), "openai", &cfg, &err) != 0)
        return 0;
    (void)agentcfg_value(&cfg, "references");
    (void)agentcfg_price(&cfg, cfg.model);
    char *text = fuzz_text(data, size);
    free(secrets_redact(text));
    free(text);
    agentcfg_free(&cfg);
    return 0;
}
