"""Reports: markdown and JSON renderings of verdicts and validations."""
