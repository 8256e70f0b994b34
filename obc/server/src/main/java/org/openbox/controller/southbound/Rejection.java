package org.openbox.controller.southbound;

import org.openbox.protocol.ErrorSubtype;

/** Why a well-formed up message was refused (answered with an Error body: 403 for FORBIDDEN subtypes, else 400). */
public record Rejection(ErrorSubtype subtype, String message) {}
