"""The write path: config, typed records, transcripts, the run store, the runner and one attempt, processes, the sandbox, prompts, pricing. Imports nothing from reading/ or commands/."""
