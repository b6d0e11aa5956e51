"""skboot."""
