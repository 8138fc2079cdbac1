import { invalid } from "./errors";

/**
 * The reference product's member names, accepted on input beside ours where the spec is silent,
 * so that its clients work unchanged (README, "Aliases"; each alias is described on its member in
 * the OpenAPI document). Answers always use our names.
 */

/** A member given under our name or the alias: both only with the same value (400 naming the alias otherwise). */
export function aliased<T>(ours: { name: string; value: T | undefined }, alias: { name: string; value: T | undefined }): T | undefined {
  if (ours.value !== undefined && alias.value !== undefined && JSON.stringify(ours.value) !== JSON.stringify(alias.value)) {
    throw invalid(alias.name, `Differs from ${ours.name}: give one of them`);
  }
  return ours.value !== undefined ? ours.value : alias.value;
}

/**
 * For an alias that wraps several of our members (`account: {...}`): the members given at the top
 * level beside it. The first one is a 400: the members go in one place or the other.
 */
export function refuseBesideWrapper(wrapper: string, topLevel: Record<string, unknown>): void {
  const given = Object.keys(topLevel).find((name) => topLevel[name] !== undefined);
  if (given !== undefined) throw invalid(`body.${given}`, `Given beside body.${wrapper}: give these members at the top level or inside ${wrapper}, not both`);
}
