#include "solution.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonpos.h"
#include "paths.h"
#include "strbuf.h"
#include "xalloc.h"

typedef struct sol_ctx {
    const char *label;
    const char *text;
    size_t len;
    kwb_error *err;
} sol_ctx;

__attribute__((format(printf, 3, 4))) static int sol_fail(const sol_ctx *c, const char *pointer, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return kwb_error_set(c->err, "%s:%d: %s", c->label, jsonpos_line(c->text, c->len, pointer), msg);
}

static int load_source(solution *s, solution_source *src, json_t *item, int i, const sol_ctx *c)
{
    char ptr[64];
    snprintf(ptr, sizeof ptr, "/sources/%d", i);
    const char *path = json_string_value(json_object_get(item, "path"));
    if (!path)
        return sol_fail(c, ptr, "source %d needs a string 'path'", i);
    if (!paths_is_safe_relative(path))
        return sol_fail(c, ptr, "source path '%s' must be relative, without '..'", path);
    src->path = xstrdup(path);
    json_t *content = json_object_get(item, "content");
    if (json_is_string(content)) {
        src->len = json_string_length(content);
        src->content = xmalloc(src->len + 1);
        memcpy(src->content, json_string_value(content), src->len + 1);
        return 0;
    }
    char *file = xasprintf("%s/%s", s->dir, path);
    src->content = strbuf_read_file(file, &src->len);
    int e = errno;
    free(file);
    if (!src->content)
        return sol_fail(c, ptr, "source '%s': cannot read %s/%s: %s", path, s->dir, path, strerror(e));
    return 0;
}

static int load_sources(solution *s, json_t *sources, const sol_ctx *c)
{
    if (!json_is_array(sources) || json_array_size(sources) == 0)
        return sol_fail(c, "/sources", "'sources' must be a non-empty list of {path[, content]}");
    s->sources = xcalloc(json_array_size(sources), sizeof *s->sources);
    for (size_t i = 0; i < json_array_size(sources); i++) {
        s->nsources++; /* counted first, so that a half-read source is freed */
        if (load_source(s, &s->sources[i], json_array_get(sources, i), (int)i, c) != 0)
            return -1;
        for (int j = 0; j < (int)i; j++)
            if (strcmp(s->sources[j].path, s->sources[i].path) == 0)
                return sol_fail(c, "/sources", "source '%s' is listed twice", s->sources[i].path);
    }
    return 0;
}

static int parse_entry(solution *s, const char *entry, const sol_ctx *c)
{
    const char *sep = entry ? strstr(entry, "::") : NULL;
    if (!sep || strstr(sep + 2, "::") || sep == entry || !sep[2])
        return sol_fail(c, "/spec/entry_point", "'spec.entry_point' must be \"FILE::FUNCTION\"");
    s->entry_file = xstrdup(entry);
    s->entry_file[sep - entry] = '\0';
    s->entry_symbol = xstrdup(sep + 2);
    for (int i = 0; i < s->nsources; i++)
        if (strcmp(s->sources[i].path, s->entry_file) == 0)
            return 0;
    return sol_fail(c, "/spec/entry_point", "entry file '%s' is not among the sources", s->entry_file);
}

static int parse_spec(solution *s, json_t *spec, const sol_ctx *c)
{
    if (!json_is_object(spec))
        return sol_fail(c, "/spec", "missing object 'spec' {language, entry_point, binding}");
    const char *lang = json_string_value(json_object_get(spec, "language"));
    if (!lang || (strcmp(lang, "c") && strcmp(lang, "cuda")))
        return sol_fail(c, "/spec/language", "'spec.language' must be \"c\" or \"cuda\" for kwb");
    s->language = xstrdup(lang);
    json_t *bjson = json_object_get(spec, "binding");
    const char *binding = json_string_value(bjson);
    if (bjson && !binding)
        return sol_fail(c, "/spec/binding", "'spec.binding' must be the string \"kwb\"");
    if (binding && strcmp(binding, "kwb") != 0)
        return sol_fail(c, "/spec/binding",
                        "'spec.binding' is \"%s\"; kwb runs only \"kwb\" solutions "
                        "(include kwb/kernel.h)",
                        binding);
    json_t *dps = json_object_get(spec, "destination_passing_style");
    if (dps && !json_is_true(dps))
        return sol_fail(c, "/spec/destination_passing_style",
                        "kwb solutions use destination-passing style (outputs after inputs)");
    return 0;
}

static int parse_solution(solution *s, json_t *root, const sol_ctx *c)
{
    if (!json_is_object(root))
        return sol_fail(c, "", "a solution must be a JSON object");
    const char *fields[] = {"name", "definition", "author"};
    char **slots[] = {&s->name, &s->definition, &s->author};
    for (int i = 0; i < 3; i++) {
        const char *v = json_string_value(json_object_get(root, fields[i]));
        char ptr[32];
        snprintf(ptr, sizeof ptr, "/%s", fields[i]);
        if (!v || !*v)
            return sol_fail(c, ptr, "missing non-empty string '%s'", fields[i]);
        *slots[i] = xstrdup(v);
    }
    s->definition_line = jsonpos_line(c->text, c->len, "/definition");
    s->language_line = jsonpos_line(c->text, c->len, "/spec/language");
    if (parse_spec(s, json_object_get(root, "spec"), c) != 0 ||
        load_sources(s, json_object_get(root, "sources"), c) != 0)
        return -1;
    return parse_entry(s, json_string_value(json_object_get(json_object_get(root, "spec"), "entry_point")), c);
}

solution *solution_load(const char *dir, kwb_error *err)
{
    solution *s = xcalloc(1, sizeof *s);
    s->dir = xstrdup(dir);
    s->json_path = xasprintf("%s/solution.json", dir);
    size_t len;
    char *text = strbuf_read_file(s->json_path, &len);
    if (!text) {
        kwb_error_set(err, "%s: cannot read: %s", s->json_path, strerror(errno));
        solution_free(s);
        return NULL;
    }
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    int rc;
    if (!root)
        rc = kwb_error_set(err, "%s:%d: invalid JSON: %s", s->json_path, jerr.line > 0 ? jerr.line : 1, jerr.text);
    else {
        sol_ctx c = {s->json_path, text, len, err};
        rc = parse_solution(s, root, &c);
    }
    json_decref(root);
    free(text);
    if (rc != 0) {
        solution_free(s);
        return NULL;
    }
    return s;
}

void solution_free(solution *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->nsources; i++) {
        free(s->sources[i].path);
        free(s->sources[i].content);
    }
    free(s->sources);
    free(s->dir);
    free(s->json_path);
    free(s->name);
    free(s->definition);
    free(s->author);
    free(s->language);
    free(s->entry_file);
    free(s->entry_symbol);
    free(s);
}
