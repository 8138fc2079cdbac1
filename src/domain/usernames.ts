/**
 * The supervisor's name is reserved: no user may take it in any letter case or Unicode spelling
 * (a user "SUPERVISOR" would look like the supervisor in every audit trail and log).
 */
export function isSupervisorName(name: string, supervisorName: string | undefined): boolean {
  if (!supervisorName) return false;
  return fold(name) === fold(supervisorName);
}

/** Compatibility-normalised and case-folded, so that "ＳＵＰＥＲＶＩＳＯＲ" and "Supervisor" compare equal. */
function fold(text: string): string {
  return text.normalize("NFKC").toLowerCase().normalize("NFKC");
}
