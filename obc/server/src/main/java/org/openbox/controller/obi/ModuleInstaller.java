package org.openbox.controller.obi;

import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.openbox.api.CustomModule;
import org.openbox.controller.OpenboxProperties;
import org.openbox.controller.apps.ModuleRegistry;
import org.openbox.controller.apps.ModuleSigner;
import org.openbox.controller.events.AppEvents;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ErrorType;
import org.openbox.protocol.message.AddCustomModuleRequest;
import org.openbox.protocol.message.ErrorMessage;
import org.openbox.protocol.message.RemoveCustomModuleRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;

/**
 * Custom modules on the OBIs: AddCustomModuleRequest (signed with the controller's key) before
 * a graph that needs the module is pushed, waiting for the answer; an application whose
 * module is refused gets an Error event (the caller leaves it out of that OBI's graph). A
 * module refused once is not sent again until the OBI or the application starts over.
 * RemoveCustomModuleRequest once no application on the OBI needs a module and the graph
 * that used it is gone.
 */
@Service
public class ModuleInstaller {

    private static final Logger log = LoggerFactory.getLogger(ModuleInstaller.class);
    private static final String MODULE_CONTENT_TYPE = "application/x-sharedlib";

    private final ModuleRegistry modules;
    private final AppEvents events;
    private final OpenboxProperties props;

    public ModuleInstaller(ModuleRegistry modules, AppEvents events, OpenboxProperties props) {
        this.modules = modules;
        this.events = events;
        this.props = props;
    }

    /** Sends AddCustomModuleRequest and waits for the answer; false (and Error events) when it failed. */
    boolean install(ObiSession s, CustomModule m, List<String> apps) {
        String known = s.moduleFailure(m.name());
        if (known != null) {
            return false; // refused before; retried when the OBI or the application starts over
        }
        String content = Base64.getEncoder().encodeToString(m.content());
        try {
            ModuleSigner.SignedModule signed = modules.signed(m);
            s.client()
                    .request(
                            xid -> new AddCustomModuleRequest(
                                    xid,
                                    m.name(),
                                    content,
                                    MODULE_CONTENT_TYPE,
                                    "base64",
                                    m.translation(),
                                    signed.version(),
                                    signed.signature(),
                                    signed.keyId()),
                            Set.of(),
                            true)
                    .get(waitMillis(), TimeUnit.MILLISECONDS);
            s.moduleInstalled(m.name());
            log.info("OBI {}: custom module '{}' installed for {}", s.dpid(), m.name(), apps);
            return true;
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            if (cause instanceof ObiErrorException err
                    && err.errorSubtype() == ErrorSubtype.ILLEGAL_STATE
                    && String.valueOf(err.getMessage()).contains("already")) {
                s.moduleInstalled(m.name()); // still there from before (the OBI did not restart)
                return true;
            }
            ErrorType type = cause instanceof ObiErrorException err ? err.errorType() : ErrorType.INTERNAL_ERROR;
            ErrorSubtype subtype =
                    cause instanceof ObiErrorException err ? err.errorSubtype() : ErrorSubtype.ADD_MODULE_FAILED;
            String why =
                    cause instanceof TimeoutException ? "no answer within " + waitMillis() + " ms" : cause.getMessage();
            String text = "custom module '" + m.name() + "' could not be installed on OBI " + s.dpid() + " (" + why
                    + "); the graph of " + apps + " is not deployed there";
            s.moduleFailed(m.name(), text);
            s.lastError(text);
            log.warn(text);
            events.onObiError(s.dpid(), new ErrorMessage(0, type, subtype, text, null), Set.copyOf(apps));
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Removes modules installed on the OBI that none of its applications needs, once the new graph is in. */
    void removeUnneeded(ObiSession s, Set<String> needed, CompletableFuture<?> pushed) {
        List<String> unneeded = s.installedModules().stream()
                .filter(m -> !needed.contains(m))
                .sorted()
                .toList();
        if (unneeded.isEmpty()) {
            return;
        }
        try {
            pushed.get(waitMillis(), TimeUnit.MILLISECONDS); // the graph that used them must be gone first
        } catch (ExecutionException | TimeoutException e) {
            log.warn("OBI {}: custom modules {} kept: the graph push did not complete", s.dpid(), unneeded);
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        for (String m : unneeded) {
            try {
                s.client()
                        .request(xid -> new RemoveCustomModuleRequest(xid, m), Set.of(), true)
                        .get(waitMillis(), TimeUnit.MILLISECONDS);
                s.moduleRemoved(m);
                log.info("OBI {}: custom module '{}' removed (no application there needs it)", s.dpid(), m);
            } catch (ExecutionException | TimeoutException e) {
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                if (cause instanceof ObiErrorException) {
                    s.moduleRemoved(m); // the OBI does not have it (any more)
                }
                RequestFailures.record(s, "RemoveCustomModuleRequest " + m, cause, props.requestTimeout());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private long waitMillis() {
        return props.requestTimeout().toMillis() + 500;
    }
}
