//! The byte-level BPE of a GGUF file whose `tokenizer.ggml.model` is `gpt2` (SmolLM2's), done
//! as llama.cpp does it:
//!
//! 1. Control (and unknown) tokens are found whole in the text when `parse_special` is set,
//!    user-defined tokens always, the longest first (llama.cpp's `tokenizer_st_partition`);
//!    the text between them goes on to the next steps.
//! 2. Pre-tokenization by the regular expressions llama.cpp lists for the file's
//!    `tokenizer.ggml.pre`. For `smollm` (and starcoder, refact, command-r, codeshell, exaone)
//!    that is `\p{N}` (every digit alone), then the GPT-2 expression
//!    `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`, which is
//!    what SmolLM2's tokenizer.json says too (`Digits(individual_digits)` then `ByteLevel`).
//!    The `regex` crate has no look-ahead: `\s+(?!\S)` is the `\s+` match given back its last
//!    character when more than one and a non-space follows, which is what backtracking does.
//!    `\p{L}`, `\p{N}` and `\s` are the `regex` crate's Unicode classes (general categories L*
//!    and N*, the White_Space property), the ones llama.cpp's tables and Oniguruma hold, up to
//!    the Unicode version. (`char::is_alphabetic` would not do: it is the Alphabetic property,
//!    which takes in combining vowel signs such as Devanagari's, `\p{L}` does not.)
//! 3. Each piece's bytes become symbols, one a byte, named by the GPT-2 byte-to-unicode map;
//!    the adjacent pair of lowest merge rank (the leftmost of equals) is merged until none is
//!    left. A byte that has no token (SmolLM2 lacks a few: 0x04, 0x06, 0x13, 0x14, 0x16, 0x1d,
//!    and 0xc0, 0xc1, 0xf1, 0xf2, 0xf5..=0xff, most never in UTF-8) is dropped, as llama.cpp and
//!    Hugging Face's tokenizers (no unknown token) both do. It still parts its neighbours, as in
//!    llama.cpp: HF drops it before merging, so ".\x04." is `..` (950) there and `.`, `.`
//!    (30, 30) here. Such bytes come only from C0 controls and unassigned planes; this is the
//!    one difference found (thousands of random and real texts give HF's ids).
//!
//! Decoding maps a token's characters back to bytes (control and user-defined tokens give their
//! text), and turns the bytes of the whole sequence into text, so a character split across
//! tokens comes out whole; [`StreamDecoder`] does the same a token at a time.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::Mutex;

use crate::gguf::{Gguf, GgufError, Value};

type Result<T> = std::result::Result<T, GgufError>;

fn err<T>(msg: impl Into<String>) -> Result<T> {
    Err(GgufError(format!("tokenizer: {}", msg.into())))
}

/// `tokenizer.ggml.token_type`: llama.cpp's `llama_token_type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenType {
    Undefined,
    Normal,
    Unknown,
    Control,
    UserDefined,
    Unused,
    Byte,
}

impl TokenType {
    fn from_code(code: u64) -> TokenType {
        match code {
            1 => TokenType::Normal,
            2 => TokenType::Unknown,
            3 => TokenType::Control,
            4 => TokenType::UserDefined,
            5 => TokenType::Unused,
            6 => TokenType::Byte,
            _ => TokenType::Undefined,
        }
    }
}

/// GPT-2's map of the 256 bytes onto printable characters: the printable Latin-1 bytes stand
/// for themselves, the others are U+0100 onwards in byte order (a space is `Ġ`, U+0120).
pub fn byte_to_char() -> [char; 256] {
    let mut map = ['\0'; 256];
    let mut n = 0u32;
    for (b, c) in map.iter_mut().enumerate() {
        let printable = (33..=126).contains(&b) || (161..=172).contains(&b) || (174..=255).contains(&b);
        *c = if printable {
            b as u8 as char
        } else {
            n += 1;
            char::from_u32(255 + n).unwrap_or('\0')
        };
    }
    map
}

const NONE: u32 = u32::MAX;
/// Pre-tokenized pieces whose ids are kept; the cache is emptied when it reaches this.
const CACHE_LIMIT: usize = 1 << 14;

pub struct Tokenizer {
    /// Token text, as stored (byte-level characters for normal tokens).
    tokens: Vec<String>,
    types: Vec<TokenType>,
    /// What each token decodes to.
    pieces: Vec<Vec<u8>>,
    /// The token of each single byte, `NONE` where the vocabulary has none.
    byte_token: [u32; 256],
    /// (left, right) -> (rank, merged token).
    merges: HashMap<(u32, u32), (u32, u32)>,
    /// Control, user-defined and unknown tokens, the longest first.
    specials: Vec<u32>,
    split_digits: bool,
    pattern: regex::Regex,
    cache: Mutex<HashMap<String, Vec<u32>>>,
    chat_template: Option<String>,
    default_system: Option<String>,
    pub bos: u32,
    pub eos: u32,
    pub pad: Option<u32>,
    pub unk: Option<u32>,
    /// `tokenizer.ggml.add_bos_token` (false for SmolLM2); [`Tokenizer::encode`] never adds it.
    pub add_bos: bool,
}

/// The GPT-2 expression without its look-ahead alternative (see the module's notes).
const GPT2_PATTERN: &str = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+";

impl Tokenizer {
    pub fn from_gguf(g: &Gguf) -> Result<Tokenizer> {
        let model = g.get("tokenizer.ggml.model").and_then(Value::as_str).unwrap_or("");
        if model != "gpt2" {
            return err(format!("tokenizer.ggml.model '{model}' (only 'gpt2', byte-level BPE, is read)"));
        }
        let pre = g.get("tokenizer.ggml.pre").and_then(Value::as_str).unwrap_or("default");
        // llama.cpp's regex lists (llama-vocab.cpp) for the pre-types that use the GPT-2 one.
        let split_digits = match pre {
            "smollm" | "starcoder" | "refact" | "command-r" | "codeshell" | "exaone" => true,
            "gpt-2" | "mpt" | "olmo" | "jais" => false,
            other => return err(format!("pre-tokenizer '{other}' is not implemented")),
        };
        let tokens: Vec<String> = g.strings("tokenizer.ggml.tokens")?.into_iter().map(str::to_owned).collect();
        let n = tokens.len();
        if n == 0 || n >= NONE as usize {
            return err(format!("{n} tokens"));
        }
        let types: Vec<TokenType> = match g.get("tokenizer.ggml.token_type").and_then(Value::as_array) {
            Some(a) if a.len() == n => a.iter().map(|v| TokenType::from_code(v.as_u64().unwrap_or(1))).collect(),
            Some(a) => return err(format!("{} token types for {n} tokens", a.len())),
            None => vec![TokenType::Normal; n],
        };
        let vocab: HashMap<&str, u32> = tokens.iter().enumerate().map(|(i, t)| (t.as_str(), i as u32)).collect();

        let to_char = byte_to_char();
        let mut to_byte = HashMap::new();
        let mut byte_token = [NONE; 256];
        for (b, &c) in to_char.iter().enumerate() {
            to_byte.insert(c, b as u8);
            byte_token[b] = vocab.get(c.encode_utf8(&mut [0; 4]) as &str).copied().unwrap_or(NONE);
        }
        let pieces = tokens
            .iter()
            .zip(&types)
            .map(|(t, ty)| match ty {
                TokenType::Control | TokenType::UserDefined | TokenType::Unknown => t.as_bytes().to_vec(),
                _ => t
                    .chars()
                    .flat_map(|c| match to_byte.get(&c) {
                        Some(&b) => vec![b],
                        None => c.to_string().into_bytes(),
                    })
                    .collect(),
            })
            .collect();

        // A merge whose halves or result are not tokens can never apply (HF refuses such a
        // file; llama.cpp would look the result up and fall back to bytes): it is left out.
        let mut merges = HashMap::new();
        for (rank, m) in g.strings("tokenizer.ggml.merges")?.into_iter().enumerate() {
            let Some((l, r)) = m.split_once(' ') else { return err(format!("merge '{m}' is not 'left right'")) };
            let ids = (vocab.get(l), vocab.get(r), vocab.get(format!("{l}{r}").as_str()));
            if let (Some(&l), Some(&r), Some(&lr)) = ids {
                merges.entry((l, r)).or_insert((rank as u32, lr));
            }
        }

        let mut specials: Vec<u32> = (0..n as u32)
            .filter(|&i| {
                let special = matches!(types[i as usize], TokenType::Control | TokenType::UserDefined | TokenType::Unknown);
                special && !tokens[i as usize].is_empty()
            })
            .collect();
        specials.sort_by_key(|&i| (Reverse(tokens[i as usize].len()), i));

        let id = |key: &str| -> Result<Option<u32>> {
            match g.get(key) {
                None => Ok(None),
                Some(v) => match v.as_u64() {
                    Some(i) if (i as usize) < n => Ok(Some(i as u32)),
                    _ => err(format!("{key} is not a token id")),
                },
            }
        };
        let Some(bos) = id("tokenizer.ggml.bos_token_id")? else { return err("no tokenizer.ggml.bos_token_id") };
        let Some(eos) = id("tokenizer.ggml.eos_token_id")? else { return err("no tokenizer.ggml.eos_token_id") };
        let chat_template = g.get("tokenizer.chat_template").and_then(Value::as_str).map(str::to_owned);
        let default_system = chat_template.as_deref().and_then(default_system_message);
        let pattern = regex::Regex::new(GPT2_PATTERN).map_err(|e| GgufError(format!("tokenizer: {e}")))?;
        Ok(Tokenizer {
            tokens,
            types,
            pieces,
            byte_token,
            merges,
            specials,
            split_digits,
            pattern,
            cache: Mutex::new(HashMap::new()),
            chat_template,
            default_system,
            bos,
            eos,
            pad: id("tokenizer.ggml.padding_token_id")?,
            unk: id("tokenizer.ggml.unknown_token_id")?,
            add_bos: matches!(g.get("tokenizer.ggml.add_bos_token"), Some(Value::Bool(true))),
        })
    }

    pub fn vocab_size(&self) -> usize {
        self.tokens.len()
    }

    /// A token's text as the file stores it (`Ġthe` for " the").
    pub fn token(&self, id: u32) -> Option<&str> {
        self.tokens.get(id as usize).map(String::as_str)
    }

    pub fn token_type(&self, id: u32) -> Option<TokenType> {
        self.types.get(id as usize).copied()
    }

    /// The id of a token given by its stored text.
    pub fn token_id(&self, text: &str) -> Option<u32> {
        self.tokens.iter().position(|t| t == text).map(|i| i as u32)
    }

    /// Control tokens (`<|im_start|>`, `<|im_end|>`, `<|endoftext|>`, ...).
    pub fn is_control(&self, id: u32) -> bool {
        self.token_type(id) == Some(TokenType::Control)
    }

    /// Text to token ids. With `parse_special`, control tokens written in the text
    /// (`<|im_start|>`) are those tokens; without it they are spelled out as ordinary text.
    /// No BOS is added.
    pub fn encode(&self, text: &str, parse_special: bool) -> Vec<u32> {
        let mut out = Vec::new();
        let mut words = Vec::new();
        for frag in self.partition(text, parse_special) {
            match frag {
                Fragment::Token(id) => out.push(id),
                Fragment::Text(t) => {
                    words.clear();
                    self.pre_tokenize(t, &mut words);
                    for w in &words {
                        self.bpe_cached(w, &mut out);
                    }
                }
            }
        }
        out
    }

    /// Splits `text` at the special tokens, as llama.cpp's `tokenizer_st_partition`: each
    /// special token in turn, the longest first, cuts every stretch of text still unmatched.
    fn partition<'a>(&self, text: &'a str, parse_special: bool) -> Vec<Fragment<'a>> {
        let mut frags = Vec::new();
        if !text.is_empty() {
            frags.push(Fragment::Text(text));
        }
        for &id in &self.specials {
            if !parse_special && self.types[id as usize] != TokenType::UserDefined {
                continue;
            }
            let s = self.tokens[id as usize].as_str();
            if !frags.iter().any(|f| matches!(f, Fragment::Text(t) if t.contains(s))) {
                continue;
            }
            let mut next = Vec::with_capacity(frags.len() + 2);
            for f in frags {
                let Fragment::Text(mut rest) = f else {
                    next.push(f);
                    continue;
                };
                while let Some(at) = rest.find(s) {
                    if at > 0 {
                        next.push(Fragment::Text(&rest[..at]));
                    }
                    next.push(Fragment::Token(id));
                    rest = &rest[at + s.len()..];
                }
                if !rest.is_empty() {
                    next.push(Fragment::Text(rest));
                }
            }
            frags = next;
        }
        frags
    }

    /// The pre-tokenizer's pieces of `text` (no special tokens in it).
    pub fn pre_tokenize<'a>(&self, text: &'a str, out: &mut Vec<&'a str>) {
        if !self.split_digits {
            return self.split_gpt2(text, out);
        }
        // `\p{N}`: every number character alone; `char::is_numeric` is exactly categories
        // Nd, Nl and No, which is `\p{N}`.
        let mut start = 0;
        for (i, c) in text.char_indices() {
            if c.is_numeric() {
                self.split_gpt2(&text[start..i], out);
                out.push(&text[i..i + c.len_utf8()]);
                start = i + c.len_utf8();
            }
        }
        self.split_gpt2(&text[start..], out);
    }

    fn split_gpt2<'a>(&self, text: &'a str, out: &mut Vec<&'a str>) {
        let mut at = 0;
        while at < text.len() {
            // Every character is matched by one alternative or another, so a match starts here.
            let Some(m) = self.pattern.find_at(text, at) else {
                out.push(&text[at..]);
                return;
            };
            let (start, mut end) = (m.start(), m.end());
            if start > at {
                out.push(&text[at..start]);
            }
            // `\s+(?!\S)`: a run of white space before a non-space keeps its last character
            // for the next piece (" world" after "   "); a single one stays (`\s+`).
            let s = m.as_str();
            if end < text.len() && s.chars().all(char::is_whitespace) {
                if let Some(last) = s.chars().next_back() {
                    if s.len() > last.len_utf8() {
                        end -= last.len_utf8();
                    }
                }
            }
            out.push(&text[start..end]);
            at = end;
        }
    }

    fn bpe_cached(&self, word: &str, out: &mut Vec<u32>) {
        if let Ok(cache) = self.cache.lock() {
            if let Some(ids) = cache.get(word) {
                out.extend_from_slice(ids);
                return;
            }
        }
        let start = out.len();
        self.bpe(word.as_bytes(), out);
        if let Ok(mut cache) = self.cache.lock() {
            if cache.len() >= CACHE_LIMIT {
                cache.clear();
            }
            cache.insert(word.to_owned(), out[start..].to_vec());
        }
    }

    /// Byte-pair merging of one piece: the adjacent pair of lowest rank first, the leftmost
    /// of equal ranks (as llama.cpp's and HF's queues order them), O(n log n).
    fn bpe(&self, bytes: &[u8], out: &mut Vec<u32>) {
        struct Sym {
            id: u32,
            prev: usize,
            next: usize,
        }
        const END: usize = usize::MAX;
        let n = bytes.len();
        let mut syms: Vec<Sym> = bytes
            .iter()
            .enumerate()
            .map(|(i, &b)| Sym { id: self.byte_token[b as usize], prev: i.wrapping_sub(1), next: if i + 1 < n { i + 1 } else { END } })
            .collect();
        if n == 0 {
            return;
        }
        syms[0].prev = END;
        let mut queue = BinaryHeap::new();
        let rank = |l: u32, r: u32| if l == NONE || r == NONE { None } else { self.merges.get(&(l, r)).copied() };
        for i in 0..n - 1 {
            if let Some((k, _)) = rank(syms[i].id, syms[i + 1].id) {
                queue.push(Reverse((k, i, i + 1)));
            }
        }
        while let Some(Reverse((k, l, r))) = queue.pop() {
            // Stale when either side has changed since the pair was queued: the right one no
            // longer next, or the pair no longer the merge of that rank.
            if syms[l].next != r {
                continue;
            }
            let Some((now, merged)) = rank(syms[l].id, syms[r].id) else { continue };
            if now != k {
                continue;
            }
            syms[l].id = merged;
            let after = syms[r].next;
            syms[l].next = after;
            syms[r].id = NONE;
            syms[r].next = END;
            if after != END {
                syms[after].prev = l;
                if let Some((k, _)) = rank(merged, syms[after].id) {
                    queue.push(Reverse((k, l, after)));
                }
            }
            let before = syms[l].prev;
            if before != END {
                if let Some((k, _)) = rank(syms[before].id, merged) {
                    queue.push(Reverse((k, before, l)));
                }
            }
        }
        let mut i = 0;
        while i != END {
            if syms[i].id != NONE {
                out.push(syms[i].id);
            }
            i = syms[i].next;
        }
    }

    /// The bytes one token stands for (empty for an id outside the vocabulary), for callers
    /// that stream: a token may end inside a UTF-8 character (see [`StreamDecoder`]).
    pub fn decode_piece(&self, id: u32) -> &[u8] {
        self.pieces.get(id as usize).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Token ids to bytes; control tokens give their text.
    pub fn decode_bytes(&self, ids: &[u32]) -> Vec<u8> {
        ids.iter().flat_map(|&id| self.decode_piece(id).iter().copied()).collect()
    }

    /// Token ids to text; control tokens give their text, bytes that are not UTF-8 become
    /// U+FFFD (only once the whole sequence is together).
    pub fn decode(&self, ids: &[u32]) -> String {
        String::from_utf8_lossy(&self.decode_bytes(ids)).into_owned()
    }

    /// The file's Jinja chat template, if it has one.
    pub fn chat_template(&self) -> Option<&str> {
        self.chat_template.as_deref()
    }

    /// The system message the chat template puts in when the conversation has none
    /// (SmolLM2: "You are a helpful AI assistant named SmolLM, trained by Hugging Face").
    pub fn default_system(&self) -> Option<&str> {
        self.default_system.as_deref()
    }

    /// One user message in ChatML with the generation prompt, as SmolLM2's template renders
    /// `[{role: user, content: user}]` with `add_generation_prompt`: its default system turn,
    /// the user turn, then `<|im_start|>assistant\n`. Encode it with `parse_special`.
    pub fn chat_prompt(&self, user: &str) -> String {
        self.chat_prompt_with_system(self.default_system(), user)
    }

    /// [`Tokenizer::chat_prompt`] with the given system message (none: no system turn).
    pub fn chat_prompt_with_system(&self, system: Option<&str>, user: &str) -> String {
        let mut s = String::new();
        if let Some(system) = system {
            s += &format!("<|im_start|>system\n{system}<|im_end|>\n");
        }
        s += &format!("<|im_start|>user\n{user}<|im_end|>\n<|im_start|>assistant\n");
        s
    }
}

enum Fragment<'a> {
    Text(&'a str),
    Token(u32),
}

/// The system text a ChatML template writes when the first message is not a system one:
/// SmolLM2's has `{% if loop.first and messages[0]['role'] != 'system' %}{{
/// '<|im_start|>system\n...<|im_end|>\n' }}{% endif %}` (with real line breaks in the string).
fn default_system_message(template: &str) -> Option<String> {
    if !template.contains("!= 'system'") && !template.contains("!= \"system\"") {
        return None;
    }
    let head = "<|im_start|>system\n";
    let at = template.find(head)? + head.len();
    let len = template[at..].find("<|im_end|>")?;
    let text = &template[at..at + len];
    // A template that writes the system message from a variable is not this kind.
    (!text.contains("{{") && !text.contains('\'') && !text.contains('"')).then(|| text.to_owned())
}

/// Turns token ids into text one at a time: the bytes of a UTF-8 character cut between tokens
/// are held until the character is whole; bytes that can never be UTF-8 become U+FFFD.
#[derive(Default)]
pub struct StreamDecoder {
    pending: Vec<u8>,
}

impl StreamDecoder {
    pub fn new() -> StreamDecoder {
        StreamDecoder::default()
    }

    /// The text that `id` completes (possibly empty).
    pub fn push(&mut self, tokenizer: &Tokenizer, id: u32) -> String {
        self.pending.extend_from_slice(tokenizer.decode_piece(id));
        let mut text = String::new();
        loop {
            match std::str::from_utf8(&self.pending) {
                Ok(s) => {
                    text += s;
                    self.pending.clear();
                    return text;
                }
                Err(e) => {
                    let good = e.valid_up_to();
                    text += std::str::from_utf8(&self.pending[..good]).unwrap_or_default();
                    match e.error_len() {
                        // Cut short: wait for the next token.
                        None => {
                            self.pending.drain(..good);
                            return text;
                        }
                        Some(bad) => {
                            text.push(char::REPLACEMENT_CHARACTER);
                            self.pending.drain(..good + bad);
                        }
                    }
                }
            }
        }
    }

    /// Whatever is still held, at the end of the stream.
    pub fn finish(&mut self) -> String {
        let text = String::from_utf8_lossy(&self.pending).into_owned();
        self.pending.clear();
        text
    }
}
