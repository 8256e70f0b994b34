package org.openbox.api;

/** What the controller hands a started application: handle access and the network topology. */
public interface AppContext {

    /** Reads and writes the handles of the application's own blocks. */
    HandleClient handles();

    /** The segments and OBIs of the network. */
    Topology topology();
}
