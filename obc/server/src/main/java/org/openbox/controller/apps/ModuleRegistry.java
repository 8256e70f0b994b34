package org.openbox.controller.apps;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.openbox.api.CustomModule;
import org.openbox.catalogue.BlockDescriptor;
import org.openbox.catalogue.Catalogue;
import org.springframework.stereotype.Component;

/**
 * The custom modules of the loaded applications, and the block catalogue they extend.
 *
 * <p>A module is known by its name; two applications may declare the same module (same
 * name and content) and share it. {@link #conflicts} tells why a newly loaded application's
 * modules cannot be accepted: a name another application uses for different content, or a
 * block type that is built in or added by another module, or no module signing key to
 * sign them with ({@link ModuleSigner}); {@link #signed} signs a module for an OBI.
 */
@Component
public class ModuleRegistry {

    private final Catalogue base;
    private final AppCatalog catalog;
    private final ModuleSigner signer;
    private List<CustomModule> cachedFor = List.of();
    private Catalogue cached;

    public ModuleRegistry(Catalogue base, AppCatalog catalog, ModuleSigner signer) {
        this.base = base;
        this.catalog = catalog;
        this.signer = signer;
        this.cached = base;
    }

    /** The module's version, signature and key id for AddCustomModuleRequest. */
    public ModuleSigner.SignedModule signed(CustomModule module) {
        return signer.sign(module);
    }

    /** The built-in catalogue plus the block types of every loaded (not refused) application's modules. */
    public synchronized Catalogue catalogue() {
        List<CustomModule> all = List.copyOf(loaded().values());
        if (!all.equals(cachedFor)) {
            cached = CustomModule.extend(base, all);
            cachedFor = all;
        }
        return cached;
    }

    /** The built-in catalogue plus the given modules' block types (to validate an application's graphs). */
    public Catalogue catalogueWith(List<CustomModule> modules) {
        return CustomModule.extend(base, modules);
    }

    /** The modules the given applications declare, by module name. */
    public Map<String, CustomModule> modulesOf(Collection<String> apps) {
        Map<String, CustomModule> out = new LinkedHashMap<>();
        for (String a : apps) {
            catalog.get(a).ifPresent(e -> e.modules().forEach(m -> out.putIfAbsent(m.name(), m)));
        }
        return out;
    }

    /** Applications among {@code apps} that declare the module. */
    public List<String> appsNeeding(String module, Collection<String> apps) {
        List<String> out = new ArrayList<>();
        for (String a : apps) {
            catalog.get(a)
                    .filter(e -> e.modules().stream().anyMatch(m -> m.name().equals(module)))
                    .ifPresent(e -> out.add(a));
        }
        return out;
    }

    /** Why {@code app}'s modules clash with built-in types or other applications' modules; empty when they do not. */
    public List<String> conflicts(String app, List<CustomModule> modules) {
        List<String> problems = new ArrayList<>();
        if (!modules.isEmpty() && !signer.configured()) {
            problems.add("custom module(s) "
                    + modules.stream().map(CustomModule::name).toList() + " cannot be installed on OBIs: "
                    + ModuleSigner.NOT_CONFIGURED);
        }
        Map<String, CustomModule> others = new LinkedHashMap<>();
        Map<String, String> typeOwner = new LinkedHashMap<>();
        for (AppEntry e : catalog.all()) {
            if (e.name().equals(app) || e.state() == AppState.REFUSED) {
                continue;
            }
            for (CustomModule m : e.modules()) {
                others.putIfAbsent(m.name(), m);
                m.blockTypes().forEach(t -> typeOwner.putIfAbsent(t.name(), m.name()));
            }
        }
        Map<String, String> mine = new LinkedHashMap<>();
        for (CustomModule m : modules) {
            CustomModule same = others.get(m.name());
            if (same != null && !same.equals(m)) {
                problems.add("custom module '" + m.name() + "' is already declared with different content by "
                        + appsNeeding(
                                m.name(),
                                catalog.all().stream()
                                        .map(AppEntry::name)
                                        .filter(n -> !n.equals(app))
                                        .toList()));
                continue;
            }
            for (BlockDescriptor t : m.blockTypes()) {
                if (base.find(t.name()).isPresent()) {
                    problems.add("custom module '" + m.name() + "' redefines the built-in block type " + t.name());
                }
                String owner = same == null ? typeOwner.get(t.name()) : null;
                String inMine = mine.putIfAbsent(t.name(), m.name());
                if (owner != null && !owner.equals(m.name())) {
                    problems.add("custom module '" + m.name() + "' adds block type " + t.name()
                            + ", already added by custom module '" + owner + "'");
                } else if (inMine != null && !inMine.equals(m.name())) {
                    problems.add(
                            "custom modules '" + inMine + "' and '" + m.name() + "' both add block type " + t.name());
                }
            }
        }
        return problems;
    }

    private Map<String, CustomModule> loaded() {
        Map<String, CustomModule> out = new LinkedHashMap<>();
        for (AppEntry e : catalog.all()) {
            if (e.state() != AppState.REFUSED) {
                e.modules().forEach(m -> out.putIfAbsent(m.name(), m));
            }
        }
        return out;
    }
}
