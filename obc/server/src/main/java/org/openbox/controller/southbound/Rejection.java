package org.openbox.controller.southbound;

import org.openbox.protocol.ErrorSubtype;

/** Why a well-formed up message was refused (answered 400 with an Error body). */
public record Rejection(ErrorSubtype subtype, String message) {}
