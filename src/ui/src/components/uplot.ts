// uPlot and its stylesheet, in their own chunk (imported dynamically by Chart).
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export default uPlot;
