import { CONFUSABLES_BY_PROTOTYPE } from "./confusables";

/**
 * What a name (of an account, user, group, source, connection, ...) may not hold beyond control
 * characters: characters that make two different names look the same, or one name look like another.
 */
const BIDI_CONTROLS = /[\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
const ZERO_WIDTH = /[\u200B-\u200D\u2060\uFEFF]/u;
const EDGE_WHITESPACE = /^\s|\s$/u;

/** Why a name is refused, or undefined when it is acceptable. */
export function nameRefusal(name: string): string | undefined {
  if (EDGE_WHITESPACE.test(name)) return "Must not start or end with whitespace";
  if (BIDI_CONTROLS.test(name)) return "Must not contain bidirectional control characters (U+200E, U+200F, U+202A-U+202E, U+2066-U+2069)";
  if (ZERO_WIDTH.test(name)) return "Must not contain zero-width characters (U+200B-U+200D, U+2060, U+FEFF)";
  return undefined;
}

/** Code points that render as nothing (zero-width spaces and joiners, bidi controls, variation selectors, ...). */
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/gu;

/**
 * The form under which two names count as the same name: NFKC, without invisible characters,
 * trimmed, case-folded, then the confusable skeleton of Unicode TS #39 (section 4: NFD, each
 * character replaced by its prototype in Unicode's confusables.txt, NFD), so that "ѕupervisor"
 * (Cyrillic ѕ), "ＳＵＰＥＲＶＩＳＯＲ" and "supervisor\u00A0" all have the skeleton of "supervisor".
 */
export function nameSkeleton(name: string): string {
  let skeleton = skeletons.get(name);
  if (skeleton === undefined) {
    skeleton = skeletonOf(name);
    if (skeletons.size >= MAX_SKELETONS_KEPT) skeletons.clear();
    skeletons.set(name, skeleton);
  }
  return skeleton;
}

// The skeletons of the names met lately (the supervisor's, and the users a trusted client asks tokens
// for, on every request): four normalizations and a walk of the name each time otherwise.
const MAX_SKELETONS_KEPT = 1024;
const skeletons = new Map<string, string>();

function skeletonOf(name: string): string {
  const folded = name.normalize("NFKC").replace(INVISIBLE, "").trim().toLowerCase().normalize("NFKC");
  let mapped = "";
  for (const ch of folded.normalize("NFD")) mapped += prototypes().get(ch) ?? ch;
  // Prototypes may be capitals ("0" is "O"): fold again, so that both sides of a comparison agree.
  return mapped.normalize("NFD").toLowerCase();
}

let prototypeOf: Map<string, string> | undefined;

/** Character → prototype, built on first use (names are compared on a few writes, never at start-up). */
function prototypes(): Map<string, string> {
  if (prototypeOf) return prototypeOf;
  prototypeOf = new Map();
  for (const record of CONFUSABLES_BY_PROTOTYPE.split("\x1e")) {
    const [prototype, sources] = record.split("\x1f");
    for (const source of sources) prototypeOf.set(source, prototype);
  }
  return prototypeOf;
}

/** True when the two names would be taken for one another. */
export function namesLookAlike(a: string, b: string): boolean {
  return nameSkeleton(a) === nameSkeleton(b);
}
