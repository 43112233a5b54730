// tokenizer_golden.mjs — the expected ids of tests/golden/tokenizers/ from an
// independent implementation: @lenml/tokenizers 3.7.2 (a JavaScript port of
// the Hugging Face tokenizers), loading the real tokenizer.json and
// tokenizer_config.json that @lenml/tokenizer-{qwen3,llama3,llama2,gemma3}
// 3.7.2 ship.
//
// Usage: node tests/reference/tokenizer_golden.mjs NPM_DIR OUT_DIR
//   NPM_DIR  where examples/fetch_tokenizers.sh unpacked the packages
//            (NPM_DIR/lenml-tokenizers-3.7.2/package, ...)
//   OUT_DIR  tests/golden/tokenizers (reads strings.json and the hand-made
//            tiny_*/tokenizer.json there, writes NAME.json)
//
// For each tokenizer and each string: the ids of encode(text) with the
// special tokens the tokenizer adds by default (BOS where it has one), the
// ids without them, and decode(ids) (special tokens kept, no clean-up of
// spaces: that is a transformers option, not part of the tokenizer). For each sentence
// of "sentences" the per-word pieces of the labelling convention
// (docs/models.md, "Tokenizers"): word w of a sentence is encoded alone,
// without special tokens, as " " + word for w > 0 and as word for w = 0
// (byte-level BPE), or as word for every w (SentencePiece style).
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [npmDir, outDir] = process.argv.slice(2);
if (!npmDir || !outDir) {
  console.error("usage: node tokenizer_golden.mjs NPM_DIR OUT_DIR");
  process.exit(2);
}
const lib = await import(pathToFileURL(path.join(npmDir, "lenml-tokenizers-3.7.2/package/dist/main.mjs")).href);
const { strings } = JSON.parse(fs.readFileSync(path.join(outDir, "strings.json"), "utf8"));
const sentences = [
  ["I", "want", "to", "book", "a", "table", "for", "7pm", "."],
  ["Can", "you", "move", "it", "to", "Friday", "?"],
  ["The", "transfer", "of", "$1,250.00", "didn't", "arrive", "."],
  ["Café", "Müller", "in", "Zürich", ",", "12/05", "."],
  ["U.S.", "rock'n'roll", "😀", "你好"],
];

// the real tokenizers of the packages, and the small hand-made ones committed
// beside the expected ids (OUT_DIR/tiny_*/)
const tokenizers = ["qwen3", "llama3", "llama2", "gemma3"].map((name) => [name, path.join(npmDir, `lenml-tokenizer-${name}-3.7.2/package/models`)]);
for (const tiny of ["tiny_bytelevel", "tiny_gpt2", "tiny_spm", "tiny_metaspace"]) tokenizers.push([tiny, path.join(outDir, tiny)]);
// and 200 random strings: fragments drawn with a fixed-seed generator, so
// that spaces, newlines, digits, letters, marks, contractions and special
// tokens meet in many orders (mulberry32, seed 12)
const FRAGMENTS = [" ", "  ", "   ", "\t", "\n", "\n\n", "\r\n", "\r", " \n", "\u00a0", "\u3000", "\u2003",
  "'s", "'S", "'t", "'re", "'VE", "'m", "'ll", "'Ll", "'d", "'", "''", "'x",
  "a", "Z", "the", "The", "hello", "World", "caf\u00e9", "e\u0301", "\u00c5", "na\u00efve", "\u00df",
  "1", "7", "12", "123", "1234", "12345", "3.14", "\u0663", "\u00bd", "\u2167",
  "!", "?", "...", "?!", ",", ".", "-", "_", "$", "%", "(", ")", "@", "#", "/",
  "\u4e2d", "\u6587", "\u3053\u308c", "\ud55c", "\u0416", "\u03a9",
  "\ud83d\ude00", "\ud83d\udc4d\ud83c\udffd", "\u200d", "\ufe0f",
  "<s>", "</s>", "<unk>", "<|im_start|>", "<|im_end|>", "<|endoftext|>", "<|begin_of_text|>", "<think>",
  "<|start|>", "<|end|>", "<mask>", "<tool>", "<", ">", "|"];
let seed = 12;
function rand() {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
for (let i = 0; i < 200; i++) {
  let s = "";
  const n = 1 + Math.floor(rand() * 12);
  for (let k = 0; k < n; k++) s += FRAGMENTS[Math.floor(rand() * FRAGMENTS.length)];
  strings.push(s);
}

for (const [name, dir] of tokenizers) {
  const tokenizerJSON = JSON.parse(fs.readFileSync(path.join(dir, "tokenizer.json"), "utf8"));
  const tokenizerConfig = JSON.parse(fs.readFileSync(path.join(dir, "tokenizer_config.json"), "utf8"));
  const tok = lib.TokenizerLoader.fromPreTrained({ tokenizerJSON, tokenizerConfig });
  const cases = strings.map((text) => {
    const ids = tok.encode(text);
    const plain = tok.encode(text, { add_special_tokens: false });
    const decoded = ids.length === 0 ? "" : tok.decode(ids, { skip_special_tokens: false, clean_up_tokenization_spaces: false });
    return { text, ids, plain, decoded };
  });
  // SentencePiece-style (a Prepend("\u2581") normalizer or a Metaspace
  // pre-tokenizer): every word alone, which gets its own "\u2581"
  const spm = /Prepend|Metaspace/.test(JSON.stringify([tokenizerJSON.normalizer, tokenizerJSON.pre_tokenizer]));
  const words = sentences.map((ws) => ({
    words: ws,
    pieces: ws.map((w, i) => tok.encode(i === 0 || spm ? w : " " + w, { add_special_tokens: false })),
  }));
  const out = {
    about: `expected by @lenml/tokenizers 3.7.2 for ${name.startsWith("tiny") ? name + "/tokenizer.json" : "@lenml/tokenizer-" + name + " 3.7.2"} (tests/reference/tokenizer_golden.mjs)`,
    cases,
    words,
  };
  fs.writeFileSync(path.join(outDir, `${name}.json`), JSON.stringify(out) + "\n");
  console.log(`${name}: ${cases.length} strings, ${words.length} sentences`);
}
