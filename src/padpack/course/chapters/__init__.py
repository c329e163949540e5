"""What a chapter's setup cell needs that no other page shares: its examples, plumbing and figure code."""
