/* llm.h - one call to a language model over HTTP (libcurl multi): OpenAI chat completions
 * (also llama.cpp, vLLM, Ollama) or the Anthropic Messages API, streamed over SSE, with retries
 * (jittered exponential backoff, retry-after), connect timeout, stall detection and cancel that
 * never blocks. A caller with an event loop uses llm_start / llm_poll / llm_cancel / llm_finish;
 * headless code uses the blocking llm_call. Usage, cost and the full request and response
 * (never the credentials) come back in an llm_result. */
#ifndef KWB_LLM_H
#define KWB_LLM_H

#include "agentcfg.h"
#include "error.h"
#include "strbuf.h"

/* Progress as the call runs. KIND: "text" (a piece of streamed visible text), "reasoning"
 * (a piece of streamed reasoning text), "status" (a line such as "retry 1/3 in 2.0 s: HTTP 429
 * rate_limit_error: ..."). Same shape as agent_progress_fn, so one can be passed for the other. */
typedef void (*llm_progress_fn)(void *ctx, const char *kind, const char *text);

/* One turn of the conversation. ROLE: "user" or "assistant". */
typedef struct llm_message {
    const char *role;
    const char *content;
} llm_message;

/* What to ask: a system prompt (may be NULL) and the turns, first one "user". The strings are
 * copied into the request body by llm_start; they need not outlive it. */
typedef struct llm_request {
    const char *system;
    const llm_message *messages;
    int nmessages;
} llm_request;

/* Why a call failed (LLM_OK when it did not). */
typedef enum llm_failure {
    LLM_OK = 0,
    LLM_FAIL_CONFIG,       /* bad configuration or no usable key: nothing was sent */
    LLM_FAIL_CONNECT,      /* could not connect / connection broke (retried) */
    LLM_FAIL_HTTP,         /* non-2xx answer (retried on 408/409/429/5xx/529) */
    LLM_FAIL_QUOTA,        /* exhausted credit or spend limit: never retried */
    LLM_FAIL_STALL,        /* no byte for stall_timeout_s (retried) */
    LLM_FAIL_STREAM_CUT,   /* the stream ended before [DONE] / message_stop (retried once) */
    LLM_FAIL_STREAM_ERROR, /* an error event inside the stream */
    LLM_FAIL_LENGTH,       /* stopped at the output cap with no visible text */
    LLM_FAIL_BAD_REPLY,    /* the reply could not be understood */
    LLM_FAIL_CANCELLED,    /* llm_cancel */
} llm_failure;

/* The outcome of one call (all attempts). Initialise with llm_result_init, free with
 * llm_result_free. Token counts are -1 when the server did not report them. */
typedef struct llm_result {
    strbuf text;          /* the visible answer (OpenAI content, or Anthropic text blocks joined) */
    strbuf reasoning;     /* reasoning text when the server sent it (never parse edits from it) */
    strbuf request;       /* the request body sent (JSON; no credentials: those are headers) */
    strbuf response;      /* the raw response of the last attempt: SSE bytes as received, or the body */
    strbuf attempts_log;  /* one line per attempt: "attempt 1: HTTP 429 rate_limit_error ...; waited 2.0 s" */
    char provider[32];    /* "openai" or "anthropic" */
    char model[128];      /* the model the server says answered (configured one if it said nothing) */
    char stop_reason[64]; /* finish_reason / stop_reason as sent, "" if none */
    char request_id[128]; /* x-request-id / request-id of the last attempt, "" if none */
    int http_status;      /* of the last attempt; 0 when no answer came */
    int attempts;         /* HTTP attempts made */
    long tokens_in;
    long tokens_out;
    double cost;         /* dollars from the configured price table; 0 when the model has no price */
    int priced;          /* 1 when the price table knew the model */
    double seconds;      /* wall time from llm_start to the end, waits included */
    double first_byte_s; /* the last attempt's seconds to its first body byte; -1 when none came */
    llm_failure failure;
} llm_result;

/* Makes R empty (every strbuf initialised, counts -1). */
void llm_result_init(llm_result *r);
/* Frees R's buffers; R may be initialised again. */
void llm_result_free(llm_result *r);
/* A one-line JSON summary of R (provider, model, tokens, cost, seconds, attempts, status,
 * stop reason, request id, failure); the caller frees it. */
char *llm_result_json(const llm_result *r);
/* A short name for F: "ok", "http", "quota", "stall", "stream-cut", ... */
const char *llm_failure_name(llm_failure f);

/* A call in progress. */
typedef struct llm_job llm_job;

/* Starts a call of REQ with CFG (provider openai or anthropic; the key from secrets_api_key).
 * PROGRESS (may be NULL) is called from llm_poll. Returns the job, or NULL with *err set (no
 * usable key, bad configuration). The job must end with llm_finish. */
llm_job *llm_start(const agent_config *cfg, const llm_request *req, llm_progress_fn progress, void *progress_ctx,
                   kwb_error *err);

/* Moves the call on, waiting at most TIMEOUT_MS for network activity (0: just look). Returns 1
 * when the call has ended (success or failure; call llm_finish), 0 while it runs. */
int llm_poll(llm_job *job, int timeout_ms);

/* Ends the call at once (no blocking); the next llm_poll returns 1 and llm_finish reports
 * "cancelled". Safe to call at any time before llm_finish, also from a signal-free event loop. */
void llm_cancel(llm_job *job);

/* Fills R (usage, cost, texts, transcript) and frees JOB. Returns 0 when the call gave an answer,
 * or -1 with *err set to a clear one-line message (no credentials in it) and R->failure set;
 * R holds what arrived either way. */
int llm_finish(llm_job *job, llm_result *r, kwb_error *err);

/* Blocking call: llm_start, llm_poll until done, llm_finish. CANCEL (may be NULL) is checked
 * at least every 100 ms; nonzero cancels. Returns 0, or -1 with *err set. */
int llm_call(const agent_config *cfg, const llm_request *req, llm_progress_fn progress, void *progress_ctx,
             volatile int *cancel, llm_result *r, kwb_error *err);

/* Dollars for TOKENS_IN and TOKENS_OUT of MODEL by CFG's price table; *priced (may be NULL) is
 * set to 0 and 0.0 returned when the table has no entry. Unknown counts (< 0) count as 0. */
double llm_cost(const agent_config *cfg, const char *model, long tokens_in, long tokens_out, int *priced);

/* 1 when SPENT (dollars) has reached BUDGET (dollars, 0 or less: no budget), else 0. */
int llm_budget_exceeded(double spent, double budget);

/* 1 when CFG's session budgets are reached by SPENT_USD dollars and SPENT_TOKENS tokens so far;
 * then *err says which ("budget reached: $2.01 of $2.00"). 0 otherwise. */
int llm_session_budget_check(const agent_config *cfg, double spent_usd, long spent_tokens, kwb_error *err);

#endif
