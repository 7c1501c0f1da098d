// The shared validators of spec core §5 live in packages/contract; the console takes them from here.
export * from '@atrium/contract';
