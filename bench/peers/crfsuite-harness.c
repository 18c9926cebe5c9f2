/*
 * A small driver for the CRFsuite library (built from the sources bundled in npm's `crfsuite`
 * package by bench/peers/install.ts), standing in for CRFsuite's own `crfsuite` front end,
 * which that package does not ship. It reads CRFsuite's attribute-file format
 * (`label<TAB>attr<TAB>attr...`, a blank line between sequences; an attribute's `:value`
 * suffix is not used, every attribute has value 1) and reports the CPU seconds of each phase
 * separately, so a benchmark can leave out file reading on both sides.
 *
 *   crfsuite-harness learn ALGO MODEL TRAIN [name=value ...]   ALGO: lbfgs | averaged-perceptron | l2sgd
 *   crfsuite-harness tag MODEL INPUT OUTPUT                      one label per line
 *
 * Prints one JSON line on stdout: {"read": s, "train": s | "load": s, "tag": s, ...}.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <crfsuite.h>

static double cpu_seconds(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

/* CPU seconds at the end of the first and of the last iteration (or epoch): the trainer logs a
 * header when one ends, so (last - first) / (iterations - 1) is the cost of one iteration
 * without any set-up. */
static int iterations = 0;
static double first_end = 0, last_end = 0;
static int on_message(void *user, const char *format, va_list args) {
  (void)user;
  if (strncmp(format, "***** Iteration #", 17) == 0 || strncmp(format, "***** Epoch #", 13) == 0) {
    last_end = cpu_seconds();
    if (++iterations == 1) first_end = last_end;
  }
  if (getenv("CRFSUITE_VERBOSE")) vfprintf(stderr, format, args);
  return 0;
}

/* Reads one line into *buf (grown as needed); returns its length without the newline, or -1 at EOF. */
static long read_line(FILE *fp, char **buf, size_t *cap) {
  long n = (long)getline(buf, cap, fp);
  if (n < 0) return -1;
  while (n > 0 && ((*buf)[n - 1] == '\n' || (*buf)[n - 1] == '\r')) (*buf)[--n] = 0;
  return n;
}

/* Reads sequences; `grow` adds unseen attributes (training), otherwise they are dropped.
 * With labels == NULL the first field of every line is skipped (tagging gold-labelled data). */
static void read_data(const char *file, crfsuite_data_t *data, crfsuite_dictionary_t *attrs,
                      crfsuite_dictionary_t *labels, int grow) {
  FILE *fp = fopen(file, "r");
  if (!fp) { fprintf(stderr, "cannot open %s\n", file); exit(1); }
  char *line = NULL;
  size_t cap = 0;
  crfsuite_instance_t inst;
  crfsuite_instance_init(&inst);
  for (;;) {
    long n = read_line(fp, &line, &cap);
    if (n <= 0) {
      if (inst.num_items > 0) crfsuite_data_append(data, &inst);
      crfsuite_instance_finish(&inst);
      crfsuite_instance_init(&inst);
      if (n < 0) break;
      continue;
    }
    crfsuite_item_t item;
    crfsuite_item_init(&item);
    char *save = NULL;
    char *field = strtok_r(line, "\t", &save);
    int label = 0;
    if (labels) label = grow ? labels->get(labels, field) : labels->to_id(labels, field);
    for (field = strtok_r(NULL, "\t", &save); field; field = strtok_r(NULL, "\t", &save)) {
      int aid = grow ? attrs->get(attrs, field) : attrs->to_id(attrs, field);
      if (aid < 0) continue;
      crfsuite_attribute_t a;
      crfsuite_attribute_set(&a, aid, 1.0);
      crfsuite_item_append_attribute(&item, &a);
    }
    crfsuite_instance_append(&inst, &item, label < 0 ? 0 : label);
    crfsuite_item_finish(&item);
  }
  free(line);
  fclose(fp);
}

static int learn(int argc, char **argv) {
  const char *algo = argv[2], *model = argv[3], *train = argv[4];
  double t0 = cpu_seconds();
  crfsuite_data_t data;
  crfsuite_data_init(&data);
  crfsuite_create_instance("dictionary", (void **)&data.attrs);
  crfsuite_create_instance("dictionary", (void **)&data.labels);
  read_data(train, &data, data.attrs, data.labels, 1);
  double t1 = cpu_seconds();

  char id[64];
  snprintf(id, sizeof id, "train/crf1d/%s", algo);
  crfsuite_trainer_t *trainer = NULL;
  if (crfsuite_create_instance(id, (void **)&trainer) == 0 || !trainer) {
    fprintf(stderr, "unknown algorithm %s\n", algo);
    return 1;
  }
  crfsuite_params_t *params = trainer->params(trainer);
  for (int i = 5; i < argc; i++) {
    char *eq = strchr(argv[i], '=');
    if (!eq) { fprintf(stderr, "expected name=value: %s\n", argv[i]); return 1; }
    *eq = 0;
    if (params->set(params, argv[i], eq + 1) != 0) { fprintf(stderr, "unknown parameter %s\n", argv[i]); return 1; }
  }
  params->release(params);
  trainer->set_message_callback(trainer, NULL, on_message);
  int status = trainer->train(trainer, &data, model, -1);
  double t2 = cpu_seconds();
  printf("{\"read\": %.4f, \"train\": %.4f, \"iterations\": %d, \"perIteration\": %.5f, \"attributes\": %d, "
         "\"labels\": %d, \"status\": %d}\n",
         t1 - t0, t2 - t1, iterations, iterations > 1 ? (last_end - first_end) / (iterations - 1) : 0.0,
         data.attrs->num(data.attrs), data.labels->num(data.labels), status);
  trainer->release(trainer);
  data.attrs->release(data.attrs);
  data.labels->release(data.labels);
  crfsuite_data_finish(&data);
  return 0;
}

static int tag(char **argv) {
  const char *model_file = argv[2], *input = argv[3], *output = argv[4];
  double t0 = cpu_seconds();
  crfsuite_model_t *model = NULL;
  if (crfsuite_create_instance_from_file(model_file, (void **)&model) != 0) {
    fprintf(stderr, "cannot load %s\n", model_file);
    return 1;
  }
  crfsuite_tagger_t *tagger = NULL;
  crfsuite_dictionary_t *attrs = NULL, *labels = NULL;
  model->get_tagger(model, &tagger);
  model->get_attrs(model, &attrs);
  model->get_labels(model, &labels);
  double t1 = cpu_seconds();
  /* Reads and tags one sequence at a time, as CRFsuite's own front end does. */
  FILE *fp = fopen(input, "r"), *out = fopen(output, "w");
  if (!fp || !out) { fprintf(stderr, "cannot open %s or %s\n", input, output); return 1; }
  char *line = NULL;
  size_t cap = 0;
  long tokens = 0;
  crfsuite_instance_t inst;
  crfsuite_instance_init(&inst);
  int *path = NULL;
  int path_cap = 0;
  for (;;) {
    long n = read_line(fp, &line, &cap);
    if (n > 0) {
      crfsuite_item_t item;
      crfsuite_item_init(&item);
      char *save = NULL;
      char *field = strtok_r(line, "\t", &save); /* the gold label: not used */
      for (field = strtok_r(NULL, "\t", &save); field; field = strtok_r(NULL, "\t", &save)) {
        int aid = attrs->to_id(attrs, field);
        if (aid < 0) continue;
        crfsuite_attribute_t a;
        crfsuite_attribute_set(&a, aid, 1.0);
        crfsuite_item_append_attribute(&item, &a);
      }
      crfsuite_instance_append(&inst, &item, 0);
      crfsuite_item_finish(&item);
      continue;
    }
    if (inst.num_items > 0) {
      if (inst.num_items > path_cap) {
        path_cap = inst.num_items * 2;
        path = realloc(path, sizeof(int) * path_cap);
      }
      floatval_t score;
      tagger->set(tagger, &inst);
      tagger->viterbi(tagger, path, &score);
      for (int i = 0; i < inst.num_items; i++) {
        const char *name = NULL;
        labels->to_string(labels, path[i], &name);
        fprintf(out, "%s\n", name);
        labels->free(labels, name);
      }
      fputc('\n', out);
      tokens += inst.num_items;
    }
    crfsuite_instance_finish(&inst);
    crfsuite_instance_init(&inst);
    if (n < 0) break;
  }
  fclose(fp);
  fclose(out);
  double t2 = cpu_seconds();
  printf("{\"load\": %.4f, \"tag\": %.4f, \"tokens\": %ld}\n", t1 - t0, t2 - t1, tokens);
  free(path);
  free(line);
  labels->release(labels);
  attrs->release(attrs);
  tagger->release(tagger);
  model->release(model);
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 5 && strcmp(argv[1], "learn") == 0) return learn(argc, argv);
  if (argc == 5 && strcmp(argv[1], "tag") == 0) return tag(argv);
  fprintf(stderr, "usage: crfsuite-harness learn ALGO MODEL TRAIN [name=value ...]\n"
                  "       crfsuite-harness tag MODEL INPUT OUTPUT\n");
  return 2;
}
