/* cmd_info.c — `seqrep info MODEL`: configuration, parameter count, file
 * checksum and the manifest of how the checkpoint was made; MODEL may be a
 * Hugging Face model folder (its config as the manifest, and a line on its
 * tokenizer). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cJSON.h>

#include "cli/commands.h"
#include "formats/checkpoint.h"
#include "formats/hf/hf_config.h"
#include "options/args.h"
#include "runs/manifest.h"
#include "text/tokenizer.h"

static const char *CMD = "info";

/* What `seqrep info` shows of one checkpoint. */
typedef struct {
    const char *path;
    char checksum[17]; /* FNV-1a 64 of the whole file (a folder: of its config.json), hex */
    int folder;        /* 1: a Hugging Face model folder */
    size_t n_params;
    CheckpointInfo info;
} InfoReport;

/* Parse argv: the one checkpoint path (or --model PATH) and --json. 0, 1 after --help, 2 after
 * the error line. */
static int parse_options(int argc, char **argv, const char **path, int *as_json)
{
    *as_json = 0;
    const char *model = NULL;
    ArgSpec specs[] = {
        {.name = "json", .type = ARG_FLAG, .value = as_json,
         .help = "print everything as one JSON object"},
        {.name = "model", .type = ARG_STRING, .value = &model,
         .help = "the checkpoint or Hugging Face model folder (or give it as the one argument)"},
    };
    int npos = 0;
    int rc = args_parse(CMD, "MODEL [--json]", specs, ARGS_COUNT(specs), argc, argv, path, 1, &npos);
    if (rc) return rc;
    if (model && npos == 0) *path = model, npos = 1;
    else if (model) return args_error(CMD, "give the model once, as --model or as the argument");
    if (npos != 1) return args_error(CMD, "expects one checkpoint path (see --help)");
    return 0;
}

/* Read the checkpoint's description and checksum and count its parameters.
 * 0 or 2 after the error line. */
static int read_report(const char *path, InfoReport *rep)
{
    SrError err;
    rep->path = path;
    rep->folder = hf_is_model_dir(path);
    if (checkpoint_read_info(path, &rep->info, &err) || model_checksum(path, rep->checksum, &err))
        return args_error(CMD, "%s", err.msg);
    rep->n_params = model_param_count(&rep->info.cfg);
    return 0;
}

/* The "tokenizer" line of a folder: its tokenizer.json's ids and the BOS it
 * puts (so the default --bos of probe, attnflow, plot and explore), or why
 * there is none to use. */
static void print_folder_tokenizer(const InfoReport *rep)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/tokenizer.json", rep->path);
    if (access(path, F_OK) != 0) {
        printf("tokenizer    none (no tokenizer.json: only info and cost work)\n");
        return;
    }
    Tokenizer tok;
    SrError err;
    if (checkpoint_tokenizer(&rep->info, rep->path, &tok, &err)) {
        printf("tokenizer    not usable: %s\n", err.msg);
        return;
    }
    TokenizerSpecials sp = tokenizer_specials(&tok);
    const char *bos = tokenizer_word(&tok, sp.bos), *eos = tokenizer_word(&tok, sp.eos);
    printf("tokenizer    tokenizer.json, %d ids, ", tok.n_words);
    if (bos) printf("BOS %s (default --bos per-copy)", bos);
    else printf("no BOS (default --bos none)");
    printf(", EOS %s\n", eos ? eos : "none");
    tokenizer_free(&tok);
}

/* Print everything as one JSON object; takes over manifest (may be NULL). */
static void print_json(const InfoReport *rep, cJSON *manifest)
{
    const ModelConfig *c = &rep->info.cfg;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "path", rep->path);
    cJSON_AddStringToObject(o, "checksum_fnv1a64", rep->checksum);
    cJSON_AddNumberToObject(o, "parameters", (double)rep->n_params);
    cJSON *cf = cJSON_AddObjectToObject(o, "config");
    cJSON_AddNumberToObject(cf, "vocab_size", c->vocab_size);
    cJSON_AddNumberToObject(cf, "d_model", c->d_model);
    cJSON_AddNumberToObject(cf, "n_layers", c->n_layers);
    cJSON_AddNumberToObject(cf, "n_heads", c->n_heads);
    cJSON_AddNumberToObject(cf, "n_kv_heads", model_kv_heads(c));
    cJSON_AddNumberToObject(cf, "head_dim", model_head_dim(c));
    cJSON_AddNumberToObject(cf, "d_ff", c->d_ff);
    cJSON_AddNumberToObject(cf, "max_seq_len", c->max_seq_len);
    cJSON_AddNumberToObject(cf, "rope_theta", c->rope_theta);
    cJSON_AddNumberToObject(cf, "norm_eps", c->norm_eps);
    cJSON_AddBoolToObject(cf, "tied", c->tied);
    cJSON_AddItemToObject(o, "manifest", manifest ? manifest : cJSON_CreateObject());
    char *text = cJSON_Print(o);
    printf("%s\n", text);
    free(text);
    cJSON_Delete(o);
}

/* Print the readable lines: configuration, each layer's positions, then the
 * manifest one entry a line. */
static void print_text(const InfoReport *rep, const cJSON *manifest)
{
    const ModelConfig *c = &rep->info.cfg;
    printf("%s   %s\n", rep->folder ? "hf folder " : "checkpoint", rep->path);
    printf("checksum     %s (FNV-1a 64%s)\n", rep->checksum, rep->folder ? " of config.json" : "");
    printf("parameters   %zu\n", rep->n_params);
    printf("vocabulary   %d\n", c->vocab_size);
    printf("d_model      %d\n", c->d_model);
    printf("layers       %d\n", c->n_layers);
    if (model_kv_heads(c) != c->n_heads)
        printf("heads        %d (head size %d, %d key/value heads)\n", c->n_heads,
               model_head_dim(c), model_kv_heads(c));
    else
        printf("heads        %d (head size %d)\n", c->n_heads, model_head_dim(c));
    printf("d_ff         %d\n", c->d_ff);
    printf("max_seq_len  %d\n", c->max_seq_len);
    printf("rope_theta   %g\n", c->rope_theta);
    printf("norm_eps     %g\n", c->norm_eps);
    printf("lm head      %s\n", c->tied ? "tied to the embedding" : "separate");
    if (rep->folder) print_folder_tokenizer(rep);
    printf("positions    ");  /* each layer's default: RoPE, none or RePo */
    for (int l = 0; l < c->n_layers; l++) {
        int repo = c->repo && l >= c->repo_from, none = l < 64 && (c->nope_layers >> l & 1);
        printf("%s%s", l ? " " : "", repo ? "repo" : none ? "none" : "rope");
    }
    printf(" (layers 0..%d)\n", c->n_layers - 1);
    printf("manifest:\n");
    for (const cJSON *it = manifest ? manifest->child : NULL; it; it = it->next) {
        char *v = cJSON_IsString(it) ? NULL : cJSON_PrintUnformatted(it);
        printf("  %-18s %s\n", it->string, v ? v : it->valuestring);
        free(v);
    }
}

/* `seqrep info`: options, the checkpoint's description, then JSON or text. */
int cmd_info(int argc, char **argv)
{
    const char *path = NULL;
    int as_json;
    int rc = parse_options(argc, argv, &path, &as_json);
    if (rc) return rc == 1 ? 0 : rc;
    InfoReport rep = {0};
    if (read_report(path, &rep)) return 2;
    cJSON *manifest = cJSON_Parse(rep.info.manifest_json);
    if (as_json) {
        print_json(&rep, manifest);
    } else {
        print_text(&rep, manifest);
        cJSON_Delete(manifest);
    }
    checkpoint_info_free(&rep.info);
    return 0;
}
