package org.openbox.protocol.message;

/**
 * A message of the OpenBox protocol (spec 4.2). Records carry the spec fields in camelCase
 * (snake_case on the wire); absent optional fields are null and are not encoded.
 */
public sealed interface Message
        permits Hello,
                KeepAlive,
                ListCapabilitiesRequest,
                ListCapabilitiesResponse,
                SetParametersRequest,
                SetParametersResponse,
                GetParametersRequest,
                GetParametersResponse,
                GlobalStatsRequest,
                GlobalStatsResponse,
                GlobalStatsReset,
                ReadRequest,
                ReadResponse,
                WriteRequest,
                WriteResponse,
                SetProcessingGraphRequest,
                SetProcessingGraphResponse,
                BarrierRequest,
                ErrorMessage,
                Alert,
                Log,
                AddCustomModuleRequest,
                AddCustomModuleResponse,
                RemoveCustomModuleRequest,
                RemoveCustomModuleResponse {
    /** The transaction id. */
    long xid();

    /** The wire name of the message, e.g. "Error". */
    String type();
}
