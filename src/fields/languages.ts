/**
 * The languages search analyses text in: each has an OpenSearch analyzer (from the
 * analysis-common module) and a Snowball stemmer for the embedded engine
 * (`@orama/stemmers`), so that an inflected form finds its word on both engines. A literal's
 * language is its tag's primary subtag (`de-CH` → `de`); tags of other languages are searched
 * as plain words only.
 *
 * The two stemmers are not the same algorithm (OpenSearch's `german` is a light stemmer with
 * German normalisation, Snowball's is heavier), so rare words can stem apart; common
 * inflections (plural, case endings, -ing, -s) agree.
 */
import { stemmer as danish } from "@orama/stemmers/danish";
import { stemmer as dutch } from "@orama/stemmers/dutch";
import { stemmer as english } from "@orama/stemmers/english";
import { stemmer as finnish } from "@orama/stemmers/finnish";
import { stemmer as french } from "@orama/stemmers/french";
import { stemmer as german } from "@orama/stemmers/german";
import { stemmer as italian } from "@orama/stemmers/italian";
import { stemmer as norwegian } from "@orama/stemmers/norwegian";
import { stemmer as portuguese } from "@orama/stemmers/portuguese";
import { stemmer as russian } from "@orama/stemmers/russian";
import { stemmer as spanish } from "@orama/stemmers/spanish";
import { stemmer as swedish } from "@orama/stemmers/swedish";

/** One search language: its OpenSearch analyzer and its stemmer. */
interface SearchLanguage {
  analyzer: string;
  stem(word: string): string;
}

const LANGUAGES: Record<string, SearchLanguage> = {
  da: { analyzer: "danish", stem: danish },
  de: { analyzer: "german", stem: german },
  en: { analyzer: "english", stem: english },
  es: { analyzer: "spanish", stem: spanish },
  fi: { analyzer: "finnish", stem: finnish },
  fr: { analyzer: "french", stem: french },
  it: { analyzer: "italian", stem: italian },
  nl: { analyzer: "dutch", stem: dutch },
  no: { analyzer: "norwegian", stem: norwegian },
  pt: { analyzer: "portuguese", stem: portuguese },
  ru: { analyzer: "russian", stem: russian },
  sv: { analyzer: "swedish", stem: swedish },
};

/** The language codes search analyses, sorted. */
export const SEARCH_LANGUAGES: readonly string[] = Object.keys(LANGUAGES).sort();

/** Words as FTS5's unicode61 tokenizer finds them: letters, digits, private-use characters. */
export const WORD = /[\p{L}\p{N}\p{Co}]+/gu;

/** The search language of a language tag (`de-CH` → `de`), or undefined when not analysed. */
export function searchLanguageOf(tag: string | undefined): string | undefined {
  if (!tag) return undefined;
  const primary = tag.split("-", 1)[0].toLowerCase();
  return primary in LANGUAGES ? primary : undefined;
}

/** The OpenSearch analyzer of a search language. */
export function analyzerOf(language: string): string {
  return LANGUAGES[language].analyzer;
}

/** The stems of the words of `text` in `language`, lower-cased, in text order. */
export function stemsOf(language: string, text: string): string[] {
  return (text.match(WORD) ?? []).map((word) => stemOf(language, word));
}

/** The stem of one word in `language`. */
export function stemOf(language: string, word: string): string {
  const lower = word.toLowerCase();
  const known = STEMS.get(language);
  let stem = known?.get(lower);
  if (stem === undefined) {
    stem = LANGUAGES[language].stem(lower);
    if (known === undefined) STEMS.set(language, new Map([[lower, stem]]));
    else if (known.size < STEMS_HELD) known.set(lower, stem);
  }
  return stem;
}

/**
 * Stems held per language: words follow Zipf's law, so a few thousand words are most of any
 * text, and a held stem costs a look-up instead of the stemmer's suffix tests (measured in a
 * collection job at 20k items: a document's stems 38-40 µs before, 33 µs after; splitting
 * the words is the rest). Bounded: once full, further words are stemmed each time.
 */
const STEMS_HELD = 50_000;
const STEMS = new Map<string, Map<string, string>>();

/** The search field holding the item's literals tagged with `language`. */
export function languageTextField(language: string): string {
  return `text_${language}`;
}
