package org.openbox.merge.core;

/** Rule {@code rule} of block {@code block} of application {@code app}. */
public record RuleRef(String app, String block, int rule) {}
