"""VLMEvalKit's TSV multiple-choice format: loaded, prompted and graded as VLMEvalKit does."""
