// The shared validators of spec core §5 live in packages/contract; the console takes them from here
// so that how the contract exposes them is decided in one line.
// Until packages/contract/src/index.ts re-exports validators.ts (issue 3), read the file directly.
export * from '../../../../packages/contract/src/validators';
