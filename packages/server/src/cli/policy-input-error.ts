/** Exit code 2 of `authority policy test`: a file could not be read or is not a valid cases file, policy or sample. */
export class PolicyTestInputError extends Error {}
