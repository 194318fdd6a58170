"""BabyVision's meta_data.jsonl layout: loaded, prompted and graded (\\boxed{} and a judge) as the reference does."""
